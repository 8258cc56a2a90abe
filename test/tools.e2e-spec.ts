import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { rmSync } from 'node:fs';
import { expectReferenceSchema } from './support/reference-schema';
import { startKeel, tempDir, TestKeel } from './support/keel';

const BUILT_IN = ['invalid', 'bash', 'read', 'glob', 'grep', 'list', 'edit', 'write', 'task', 'webfetch', 'todowrite', 'todoread'];

describe('tools: /experimental/tool/ids and /experimental/tool', () => {
  let keel: TestKeel;
  let dir: string;

  beforeAll(async () => {
    keel = await startKeel();
    dir = tempDir('keel-tools-');
  });

  afterAll(async () => {
    await keel.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the built-in tool ids in registry order', async () => {
    const client = createOpencodeClient({ baseUrl: keel.url, directory: dir });
    const { data, response } = await client.tool.ids();
    expect(response.status).toBe(200);
    expectReferenceSchema(data, 'ToolIDs');
    expect(data).toEqual(BUILT_IN);
  });

  it('lists every tool with a description and JSON-schema parameters', async () => {
    const client = createOpencodeClient({ baseUrl: keel.url, directory: dir });
    const { data, response } = await client.tool.list({ provider: 'scripted', model: 'any' });
    expect(response.status).toBe(200);
    expectReferenceSchema(data, 'ToolList');
    expect(data!.map((t) => t.id)).toEqual(BUILT_IN);
    for (const tool of data!) {
      expect(tool.description.length).toBeGreaterThan(5);
      expect(tool.parameters).toMatchObject({ type: 'object', properties: expect.any(Object) });
    }
    const bash = data!.find((t) => t.id === 'bash')!;
    expect(bash.parameters).toMatchObject({
      properties: { command: { type: 'string' }, timeout: { type: 'integer' }, description: { type: 'string' } },
      required: expect.arrayContaining(['command', 'description']),
    });
    const edit = data!.find((t) => t.id === 'edit')!;
    expect(edit.parameters).toMatchObject({ required: ['filePath', 'oldString', 'newString'], properties: { replaceAll: { type: 'boolean' } } });
  });

  it('answers 400 naming the missing query parameter', async () => {
    const response = await fetch(`${keel.url}/experimental/tool?model=x&directory=${encodeURIComponent(dir)}`);
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body).toMatchObject({ success: false });
    expect(JSON.stringify(body.error)).toContain('provider');
  });
});
