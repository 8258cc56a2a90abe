/**
 * What middleware-manager v3 users create their rows from: the UI's per-type templates
 * (`ui/src/services/api.js`, `getConfigTemplate` / `getProtocolTemplate`) and the middleware
 * templates file `config/templates.yaml` (v3.0.3 ids plus HEAD's MCP ones), as `{type, config}`.
 * Each must be accepted (and emitted) as it is, since a migrated database holds them verbatim.
 */
type Template = { type: string; config: Record<string, unknown> };

export const V3_UI_MIDDLEWARE_TEMPLATES: Record<string, Template> = {
  basicAuth: { type: 'basicAuth', config: { users: ['admin:$apr1$H6uskkkW$IgXLP6ewTrSuBkTrqE8wj/'] } },
  digestAuth: { type: 'digestAuth', config: { users: ['test:traefik:a2688e031edb4be6a3797f3882655c05'] } },
  forwardAuth: {
    type: 'forwardAuth',
    config: {
      address: 'http://auth-service:9090/auth',
      trustForwardHeader: true,
      authResponseHeaders: ['X-Auth-User', 'X-Auth-Roles'],
    },
  },
  ipWhiteList: { type: 'ipWhiteList', config: { sourceRange: ['127.0.0.1/32', '192.168.1.0/24'] } },
  ipAllowList: { type: 'ipAllowList', config: { sourceRange: ['127.0.0.1/32', '192.168.1.0/24'] } },
  rateLimit: { type: 'rateLimit', config: { average: 100, burst: 50 } },
  headers: {
    type: 'headers',
    config: {
      browserXssFilter: true,
      contentTypeNosniff: true,
      customFrameOptionsValue: 'SAMEORIGIN',
      forceSTSHeader: true,
      stsIncludeSubdomains: true,
      stsSeconds: 63072000,
      customResponseHeaders: { 'X-Custom-Header': 'value', Server: '' },
    },
  },
  stripPrefix: { type: 'stripPrefix', config: { prefixes: ['/api'], forceSlash: true } },
  addPrefix: { type: 'addPrefix', config: { prefix: '/api' } },
  redirectRegex: {
    type: 'redirectRegex',
    config: { regex: '^http://(.*)$', replacement: 'https://${1}', permanent: true },
  },
  redirectScheme: { type: 'redirectScheme', config: { scheme: 'https', permanent: true, port: '443' } },
  replacePath: { type: 'replacePath', config: { path: '/newpath' } },
  replacePathRegex: { type: 'replacePathRegex', config: { regex: '^/api/(.*)', replacement: '/bar/$1' } },
  stripPrefixRegex: { type: 'stripPrefixRegex', config: { regex: ['^/api/v\\d+/'] } },
  plugin: { type: 'plugin', config: { 'plugin-name': { option1: 'value1', option2: 'value2' } } },
  buffering: {
    type: 'buffering',
    config: {
      maxRequestBodyBytes: 10485760,
      memRequestBodyBytes: 2097152,
      maxResponseBodyBytes: 10485760,
      memResponseBodyBytes: 2097152,
      retryExpression: 'IsNetworkError() && Attempts() < 2',
    },
  },
  circuitBreaker: {
    type: 'circuitBreaker',
    config: { expression: 'NetworkErrorRatio() > 0.5 && Requests > 10' },
  },
  compress: { type: 'compress', config: { excludedContentTypes: ['text/event-stream'] } },
  contentType: { type: 'contentType', config: {} },
  errors: {
    type: 'errors',
    config: { status: ['500-599'], service: 'error-service@file', query: '/{status}.html' },
  },
  grpcWeb: { type: 'grpcWeb', config: {} },
  inFlightReq: { type: 'inFlightReq', config: { amount: 10 } },
  passTLSClientCert: { type: 'passTLSClientCert', config: { pem: true } },
  retry: { type: 'retry', config: { attempts: 4 } },
};

export const V3_UI_SERVICE_TEMPLATES: Record<string, Template> = {
  loadBalancer: {
    type: 'loadBalancer',
    config: {
      servers: [{ url: 'http://backend1:80' }, { url: 'http://backend2:80', weight: 2 }],
      healthCheck: { path: '/health', interval: '10s', timeout: '3s' },
      sticky: { cookie: { name: 'sticky_session', secure: true, httpOnly: true } },
      passHostHeader: true,
    },
  },
  weighted: {
    type: 'weighted',
    config: {
      services: [
        { name: 'primary-service@file', weight: 3 },
        { name: 'backup-service@file', weight: 1 },
      ],
      healthCheck: {},
      sticky: { cookie: { name: 'weighted_sticky' } },
    },
  },
  mirroring: {
    type: 'mirroring',
    config: {
      service: 'primary-service@file',
      mirrors: [
        { name: 'analytics-service@file', percent: 10 },
        { name: 'testing-service@file', percent: 5 },
      ],
      mirrorBody: true,
      maxBodySize: 10485760,
      healthCheck: {},
    },
  },
  failover: {
    type: 'failover',
    config: { service: 'main-service@file', fallback: 'backup-service@file', healthCheck: {} },
  },
  tcp: {
    type: 'loadBalancer',
    config: {
      servers: [{ address: 'backend1:8080' }, { address: 'backend2:8080', tls: true }],
      terminationDelay: 100,
    },
  },
  udp: {
    type: 'loadBalancer',
    config: { servers: [{ address: 'backend1:53' }, { address: 'backend2:53' }] },
  },
};

export const V3_TEMPLATES_YAML: Record<string, Template> = {
  tinyauth: { type: 'forwardAuth', config: { address: 'http://tinyauth:10000/api/auth/traefik' } },
  'jwt-auth': {
    type: 'forwardAuth',
    config: {
      address: 'http://jwt-auth:8080/verify',
      trustForwardHeader: true,
      authResponseHeaders: ['X-JWT-Sub', 'X-JWT-Name', 'X-JWT-Email'],
    },
  },
  'headers-standard': {
    type: 'headers',
    config: {
      accessControlAllowMethods: ['GET', 'OPTIONS', 'PUT'],
      browserXssFilter: true,
      contentTypeNosniff: true,
      customFrameOptionsValue: 'SAMEORIGIN',
      customResponseHeaders: {
        'X-Forwarded-Proto': 'https',
        'X-Robots-Tag': 'none,noarchive,nosnippet,notranslate,noimageindex',
        Server: '',
        'X-Powered-By': '',
      },
      forceSTSHeader: true,
      hostsProxyHeaders: ['X-Forwarded-Host'],
      permissionsPolicy: 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), vr=()',
      referrerPolicy: 'same-origin',
      sslProxyHeaders: { 'X-Forwarded-Proto': 'https' },
      stsIncludeSubdomains: true,
      stsPreload: true,
      stsSeconds: 63072000,
    },
  },
  'in-flight-req': {
    type: 'inFlightReq',
    config: {
      amount: 10,
      sourceCriterion: { ipStrategy: { depth: 2, excludedIPs: ['127.0.0.1/32'] }, requestHost: true },
    },
  },
  'strip-prefix': { type: 'stripPrefix', config: { prefixes: ['/api', '/v1'], forceSlash: true } },
  compress: {
    type: 'compress',
    config: {
      excludedContentTypes: ['text/event-stream'],
      includedContentTypes: ['text/html', 'text/plain', 'application/json'],
      minResponseBodyBytes: 1024,
      encodings: ['gzip', 'br'],
    },
  },
  buffering: {
    type: 'buffering',
    config: {
      maxRequestBodyBytes: 5000000,
      memRequestBodyBytes: 2000000,
      maxResponseBodyBytes: 5000000,
      memResponseBodyBytes: 2000000,
      retryExpression: 'IsNetworkError() && Attempts() < 2',
    },
  },
  'circuit-breaker': {
    type: 'circuitBreaker',
    config: {
      expression: 'NetworkErrorRatio() > 0.20 || ResponseCodeRatio(500, 600, 0, 600) > 0.25',
      checkPeriod: '10s',
      fallbackDuration: '30s',
      recoveryDuration: '60s',
      responseCode: 503,
    },
  },
  retry: { type: 'retry', config: { attempts: 3, initialInterval: '100ms' } },
  'error-pages': {
    type: 'errors',
    config: { status: ['500-599'], service: 'error-handler-service', query: '/{status}.html' },
  },
  'grpc-web': { type: 'grpcWeb', config: { allowOrigins: ['*'] } },
  'nextcloud-dav': {
    type: 'replacePathRegex',
    config: { regex: '^/.well-known/ca(l|rd)dav', replacement: '/remote.php/dav/' },
  },
  'custom-headers-example': {
    type: 'headers',
    config: {
      customRequestHeaders: {
        'X-Script-Name': 'test',
        'X-Custom-Value': 'value with spaces',
        'X-Custom-Request-Header': '',
      },
      customResponseHeaders: { 'X-Custom-Response-Header': 'value', Server: '' },
    },
  },
  geoblock: {
    type: 'plugin',
    config: {
      geoblock: {
        silentStartUp: false,
        allowLocalRequests: false,
        api: 'https://get.geojs.io/v1/ip/country/{ip}',
        apiTimeoutMs: 750,
        cacheSize: 15,
        countries: ['DE'],
      },
    },
  },
  'mcp-auth': {
    type: 'forwardAuth',
    config: { address: 'http://mcpauth:11000/auth', authResponseHeaders: ['X-Forwarded-User'] },
  },
  'mcp-cors-headers': {
    type: 'headers',
    config: {
      accessControlAllowCredentials: true,
      accessControlAllowHeaders: ['Authorization', 'Content-Type', 'mcp-protocol-version'],
      accessControlAllowMethods: ['GET', 'POST', 'OPTIONS'],
      accessControlAllowOriginList: ['*'],
      accessControlMaxAge: 86400,
      addVaryHeader: true,
    },
  },
  'mcp-redirect-regex': {
    type: 'redirectRegex',
    config: {
      permanent: true,
      regex:
        '^https://([a-z0-9-]+)\\.(.+)/\\.well-known/(oauth-authorization-server|openid-configuration)(.*)?',
      replacement: 'https://oauth.${2}/.well-known/${3}${4}',
    },
  },
  'mcp-security-chain': {
    type: 'chain',
    config: { middlewares: ['mcp-cors-headers@file', 'mcp-redirect-regex@file', 'mcp-auth@file'] },
  },
};
