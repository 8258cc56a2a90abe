import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import type { Plugin } from 'vite';

const ID = 'virtual:traefik-validators';
const SCHEMA = fileURLToPath(new URL('../src/routing/traefik-v3-file-provider.schema.json', import.meta.url));

/**
 * `virtual:traefik-validators`: the Traefik schema's middleware and service definitions compiled to
 * plain JavaScript at build time (ajv's standalone code), exported as `validators`, by definition name. Compiled in the
 * browser, ajv would need `new Function`, which the console's Content-Security-Policy forbids.
 */
export function traefikValidators(): Plugin {
  return {
    name: 'keel-traefik-validators',
    resolveId: (id) => (id === ID ? `\0${ID}` : undefined),
    load(id) {
      if (id !== `\0${ID}`) return undefined;
      const schema = JSON.parse(readFileSync(SCHEMA, 'utf8')) as { definitions: Record<string, unknown> };
      const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, code: { source: true, esm: true } });
      ajv.addSchema({ ...schema, $id: 'traefik' });
      const names = Object.keys(schema.definitions).filter((name) => /(Middleware|Service)$/.test(name));
      const code = standaloneCode(ajv, Object.fromEntries(names.map((name) => [name, `traefik#/definitions/${name}`])));
      return `${code}\nexport const validators = { ${names.join(', ')} };\n`;
    },
  };
}
