import Module from 'node:module';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { SCHEMA_ID, standaloneValidators, traefikAjv } from './traefik-schema';

/** The module the build writes beside the bundle, loaded as the bundle loads it (its ajv runtime helpers from node_modules). */
function precompiled(): Record<string, ValidateFunction> {
  const file = join(__dirname, 'traefik-validators.generated.js');
  const loaded = new Module(file);
  loaded.filename = file;
  loaded.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(
    __dirname,
  );
  (loaded as unknown as { _compile(source: string, file: string): void })._compile(
    standaloneValidators(),
    file,
  );
  return loaded.exports as Record<string, ValidateFunction>;
}

describe('the Traefik schema validators compiled ahead of time', () => {
  const validators = precompiled();
  const cases: [string, unknown][] = [
    ['forwardAuthMiddleware', { address: 'http://auth:9000', trustForwardHeader: true }],
    ['forwardAuthMiddleware', { address: 42, unknownField: 1 }],
    ['headersMiddleware', { customRequestHeaders: { 'X-A': 'b' }, stsSeconds: 'many' }],
    ['rateLimitMiddleware', { average: 10, burst: 'x', period: [] }],
    ['redirectRegexMiddleware', { regex: '^http://(.*)', replacement: 'https://$1' }],
    ['chainMiddleware', { middlewares: 'not-a-list' }],
    ['httpLoadBalancerService', { servers: [{ url: 'http://a:80' }, { url: 7 }] }],
    ['httpWeightedService', { services: [{ name: 'a', weight: 'heavy' }] }],
  ];

  it('exports every definition of the schema', () => {
    for (const [definition] of cases)
      expect([definition, typeof validators[definition]]).toEqual([definition, 'function']);
  });

  it.each(cases)(
    'answers %s with the errors the validator compiled at run time gives',
    (definition, value) => {
      const atRunTime = traefikAjv({ source: false }).getSchema(`${SCHEMA_ID}#/definitions/${definition}`)!;
      const validate = validators[definition];
      expect(validate(value)).toBe(atRunTime(value));
      expect(validate.errors ?? null).toEqual(atRunTime.errors ?? null);
    },
  );
});
