import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

// deploy/traefik/keel.yml is the file operators copy as it is: it must be a dynamic configuration
// Traefik v3 accepts. The schema is the Traefik v3 file-provider schema the routing manager validates
// its own output with (the reference copy differs only in the mirroring service's `mirrorBody`).
const root = join(__dirname, '..');
const schema = JSON.parse(readFileSync(join(root, 'src/routing/traefik-v3-file-provider.schema.json'), 'utf8')) as object;
const configuration = parse(readFileSync(join(root, 'deploy/traefik/keel.yml'), 'utf8')) as {
  http: {
    routers: Record<string, { service: string; middlewares?: string[] }>;
    services: Record<string, { loadBalancer: { serversTransport?: string; sticky?: unknown } }>;
    middlewares: Record<string, unknown>;
    serversTransports: Record<string, { forwardingTimeouts: Record<string, string> }>;
  };
};

describe('deploy/traefik/keel.yml', () => {
  it('is a valid Traefik v3 file-provider dynamic configuration', () => {
    const validate = new Ajv({ allErrors: true, strict: false, validateFormats: false }).compile(schema);
    expect(validate(configuration) ? [] : validate.errors).toEqual([]);
  });

  it('names only services, middlewares and servers transports it defines', () => {
    const { routers, services, middlewares, serversTransports } = configuration.http;
    for (const router of Object.values(routers)) {
      expect(Object.keys(services)).toContain(router.service);
      for (const middleware of router.middlewares ?? []) expect(Object.keys(middlewares)).toContain(middleware);
    }
    for (const service of Object.values(services)) {
      if (service.loadBalancer.serversTransport) expect(Object.keys(serversTransports)).toContain(service.loadBalancer.serversTransport);
    }
    for (const transport of Object.values(serversTransports)) {
      expect(Object.keys(transport.forwardingTimeouts).sort()).toEqual(['dialTimeout', 'idleConnTimeout', 'responseHeaderTimeout']);
    }
  });

  it('keeps terminals on one replica with a sticky cookie', () => {
    const { routers, services } = configuration.http;
    const pty = Object.values(routers).find((r) => 'rule' in r && String((r as { rule: string }).rule).includes('/pty'));
    expect(services[pty!.service].loadBalancer.sticky).toMatchObject({ cookie: { name: 'keel_replica', httpOnly: true } });
  });
});
