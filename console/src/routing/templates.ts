/**
 * Starting points for a new middleware or service, per type: middleware-manager v3's UI templates
 * (`ui/src/services/api.js`), so a team moving over finds the same ones. Service templates are keyed
 * by template name (tcp and udp are loadBalancers with `address` servers).
 */
type Template = { type: string; config: Record<string, unknown> };

export const MIDDLEWARE_TEMPLATES: Record<string, Template> = {
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
  chain: { type: 'chain', config: { middlewares: ['first-middleware@file', 'second-middleware@file'] } },
};

export const SERVICE_TEMPLATES: Record<string, Template> = {
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
