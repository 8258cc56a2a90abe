import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { generateText } from 'ai';
import Ajv2020 from 'ajv/dist/2020';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { referenceDocument } from '../src/openapi/reference-document';
import { InstanceService } from '../src/projects/instance.service';
import { ProviderService } from '../src/providers/provider.service';
import { expectReferenceSchema } from './support/reference-schema';
import { setEnv } from './support/env';
import { startKeel, tempDir, TestKeel } from './support/keel';

const CATALOG_KEYS = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'GEMINI_API_KEY',
  'OPENROUTER_API_KEY',
  'GROQ_API_KEY',
  'MISTRAL_API_KEY',
  'DEEPSEEK_API_KEY',
  'XAI_API_KEY',
];

/** Validates a value against the 200 response schema of a reference operation. */
function expectOperationResponse(value: unknown, path: string, method: string): void {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  const document = referenceDocument();
  ajv.addSchema({ $id: 'opencode', components: document.components });
  const schema = JSON.parse(
    JSON.stringify((document.paths[path][method].responses['200'] as any).content['application/json'].schema).replace(/"#\/components\//g, '"opencode#/components/'),
  );
  const validate = ajv.compile(schema);
  if (!validate(value)) throw new Error(`${method} ${path} response does not match: ${ajv.errorsText(validate.errors)}`);
}

/** A scripted OpenAI-compatible chat completions server on loopback. */
function startModelServer(): Promise<{ server: Server; url: string; requests: { headers: IncomingMessage['headers']; body: any }[] }> {
  const requests: { headers: IncomingMessage['headers']; body: any }[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: JSON.parse(raw || '{}') });
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'tiny-api',
          choices: [{ index: 0, message: { role: 'assistant', content: 'hello from tiny' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
        }),
      );
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests })),
  );
}

describe('providers: catalog, env keys, config providers, stored credentials, model resolution', () => {
  let keel: TestKeel;
  let xdg: string;
  let plain: string;
  let custom: string;
  let restoreEnv: () => void;
  let model: Awaited<ReturnType<typeof startModelServer>>;

  beforeAll(async () => {
    model = await startModelServer();
    xdg = tempDir('keel-xdg-');
    plain = tempDir('keel-prov-plain-');
    custom = tempDir('keel-prov-custom-');
    writeFileSync(
      join(custom, 'opencode.json'),
      JSON.stringify({
        model: 'local/tiny',
        small_model: 'anthropic/claude-haiku-4-5',
        disabled_providers: ['openai'],
        provider: {
          local: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Local',
            options: { baseURL: model.url, apiKey: '{env:KEEL_LOCAL_KEY}' },
            models: { tiny: { id: 'tiny-api', name: 'Tiny', limit: { context: 8000, output: 1000 }, cost: { input: 1, output: 2 } } },
          },
          anthropic: { whitelist: ['claude-haiku-4-5', 'claude-sonnet-4-5'] },
        },
      }),
    );
    restoreEnv = setEnv({
      ...Object.fromEntries(CATALOG_KEYS.map((k) => [k, undefined])),
      XDG_CONFIG_HOME: xdg,
      OPENCODE_CONFIG: undefined,
      OPENCODE_CONFIG_CONTENT: undefined,
      ANTHROPIC_API_KEY: 'sk-ant-env-secret',
      KEEL_LOCAL_KEY: 'local-secret',
    });
    keel = await startKeel();
  });

  afterAll(async () => {
    await keel.close();
    restoreEnv();
    model.server.close();
    for (const d of [xdg, plain, custom]) rmSync(d, { recursive: true, force: true });
  });

  it('lists providers connected by env keys, with reference shapes, ranked defaults and no keys', async () => {
    const client = createOpencodeClient({ baseUrl: keel.url, directory: plain });
    const { data, response } = await client.config.providers();
    expect(response.status).toBe(200);
    expectOperationResponse(data, '/config/providers', 'get');
    expect(data?.providers.map((p) => p.id)).toEqual(['anthropic']);
    const anthropic = data!.providers[0];
    expectReferenceSchema(anthropic, 'Provider');
    for (const m of Object.values(anthropic.models)) expectReferenceSchema(m, 'Model');
    expect(anthropic).toMatchObject({ source: 'env', env: ['ANTHROPIC_API_KEY'] });
    expect(anthropic.models['claude-sonnet-4-5']).toMatchObject({
      limit: { context: 200000, output: 64000 },
      cost: { input: 3, output: 15, cache: { read: 0.3, write: 3.75 } },
      capabilities: { attachment: true, reasoning: true, toolcall: true, temperature: true },
      api: { npm: '@ai-sdk/anthropic' },
    });
    expect(data?.default).toEqual({ anthropic: 'claude-sonnet-4-5' });
    expect(JSON.stringify(data)).not.toContain('sk-ant-env-secret');

    const list = await client.provider.list();
    expectOperationResponse(list.data, '/provider', 'get');
    // opencode 1.18 reads its own Provider keys here, beside the seed's models.dev shape.
    expect(list.data?.all.find((p) => p.id === 'anthropic')).toMatchObject({
      source: 'env',
      options: {},
      models: {
        'claude-sonnet-4-5': {
          providerID: 'anthropic',
          api: { npm: '@ai-sdk/anthropic' },
          capabilities: { toolcall: true },
          cost: { input: 3, cache_read: 0.3, cache: { read: 0.3, write: 3.75 } },
          tool_call: true,
        },
      },
    });
    expect(list.data?.connected).toEqual(['anthropic']);
    expect(list.data?.all.map((p) => p.id)).toEqual(expect.arrayContaining(['anthropic', 'openai', 'google', 'openrouter', 'groq', 'mistral', 'deepseek', 'xai']));
    expect(list.data?.default.openai).toBe('gpt-5.1');
  });

  it('merges config providers (openai-compatible, whitelist, disabled) and honours model/small_model', async () => {
    const client = createOpencodeClient({ baseUrl: keel.url, directory: custom });
    const { data } = await client.config.providers();
    expect(data?.providers.map((p) => p.id).sort()).toEqual(['anthropic', 'local']);
    const local = data!.providers.find((p) => p.id === 'local')!;
    expectReferenceSchema(local, 'Provider');
    expect(local).toMatchObject({ source: 'config', name: 'Local', options: { baseURL: model.url } });
    expect(local.models.tiny).toMatchObject({ api: { id: 'tiny-api', npm: '@ai-sdk/openai-compatible', url: model.url }, limit: { context: 8000, output: 1000 } });
    expect(Object.keys(data!.providers.find((p) => p.id === 'anthropic')!.models).sort()).toEqual(['claude-haiku-4-5', 'claude-sonnet-4-5']);
    expect(JSON.stringify(data)).not.toContain('local-secret');
    const list = await client.provider.list();
    expect(list.data?.all.map((p) => p.id)).not.toContain('openai');

    const providers = keel.keel.app.get(ProviderService);
    const instance = await keel.keel.app.get(InstanceService).get(custom);
    expect(await providers.defaultModel(instance)).toEqual({ providerID: 'local', modelID: 'tiny' });
    expect(await providers.smallModel(instance)).toEqual({ providerID: 'anthropic', modelID: 'claude-haiku-4-5' });
    const plainInstance = await keel.keel.app.get(InstanceService).get(plain);
    expect(await providers.defaultModel(plainInstance)).toEqual({ providerID: 'anthropic', modelID: 'claude-sonnet-4-5' });
    expect(await providers.smallModel(plainInstance)).toEqual({ providerID: 'anthropic', modelID: 'claude-haiku-4-5' });

    const resolved = await providers.resolveModel(instance, 'local', 'tiny');
    expect(resolved).toMatchObject({ sdk: 'openai-compatible', baseURL: model.url, apiKey: 'local-secret', apiModelID: 'tiny-api' });
    const result = await generateText({ model: await providers.languageModel(instance, 'local', 'tiny'), prompt: 'hi' });
    expect(result.text).toBe('hello from tiny');
    expect(model.requests.at(-1)?.body.model).toBe('tiny-api');
    expect(model.requests.at(-1)?.headers.authorization).toBe('Bearer local-secret');

    await expect(providers.resolveModel(instance, 'local', 'tinny')).rejects.toMatchObject({
      status: 400,
      errorName: 'ProviderModelNotFoundError',
      data: { providerID: 'local', modelID: 'tinny', suggestions: ['tiny'] },
    });
    await expect(providers.resolveModel(instance, 'anthropc', 'x')).rejects.toMatchObject({ data: { suggestions: ['anthropic'] } });
  });

  it('stores PUT /auth credentials owner-only, never echoes them, and connects the provider', async () => {
    const client = createOpencodeClient({ baseUrl: keel.url, directory: plain });
    const response = await fetch(`${keel.url}/auth/openai?directory=${encodeURIComponent(plain)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'api', key: 'sk-openai-stored-secret' }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toBe('true');
    const file = join(keel.dataDir, 'auth.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ openai: { type: 'api', key: 'sk-openai-stored-secret' } });

    const { data } = await client.config.providers();
    expect(data?.providers.map((p) => p.id).sort()).toEqual(['anthropic', 'openai']);
    expect(data?.providers.find((p) => p.id === 'openai')?.source).toBe('api');
    expect(data?.default.openai).toBe('gpt-5.1');
    expect(JSON.stringify(data)).not.toContain('sk-openai-stored-secret');
    expect(JSON.stringify((await client.provider.list()).data)).not.toContain('sk-openai-stored-secret');

    const bad = await fetch(`${keel.url}/auth/openai?directory=${encodeURIComponent(plain)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'oauth', access: 'oauth-access-secret' }),
    });
    expect(bad.status).toBe(400);
    const badBody = await bad.json();
    expect(badBody.success).toBe(false);
    expect(JSON.stringify(badBody)).not.toContain('oauth-access-secret');
  });

  it('connects a catalog provider pointed at a base URL without a key, through openai-compatible', async () => {
    const dir = tempDir('keel-prov-base-');
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify({ provider: { openai: { options: { baseURL: model.url } } } }));
    const providers = keel.keel.app.get(ProviderService);
    const instance = await keel.keel.app.get(InstanceService).get(dir);
    const resolved = await providers.resolveModel(instance, 'openai', 'gpt-5');
    expect(resolved).toMatchObject({ sdk: 'openai-compatible', baseURL: model.url, apiModelID: 'gpt-5' });
    const result = await generateText({ model: await providers.languageModel(instance, 'openai', 'gpt-5'), prompt: 'hi' });
    expect(result.text).toBe('hello from tiny');
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 400 on providers routes when the config is broken', async () => {
    const dir = tempDir('keel-prov-bad-');
    mkdirSync(join(dir, '.opencode'));
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify({ provider: { x: { options: { baseURL: 5 } } } }));
    const response = await fetch(`${keel.url}/config/providers?directory=${encodeURIComponent(dir)}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ name: 'ConfigInvalidError', data: { issues: [{ path: ['provider', 'x', 'options', 'baseURL'] }] } });
    rmSync(dir, { recursive: true, force: true });
  });
});
