import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SseClient } from './support/sse';
import { expectReferenceSchema } from './support/reference-schema';
import { setEnv } from './support/env';
import { startKeel, tempDir, TestKeel } from './support/keel';

function gitRepo(dir: string): void {
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'root'], { cwd: dir });
}

describe('config: files, merge order, substitution, validation, PATCH', () => {
  let keel: TestKeel;
  let xdg: string;
  let repo: string;
  let sub: string;
  let restoreEnv: () => void;

  beforeAll(async () => {
    xdg = tempDir('keel-xdg-');
    repo = tempDir('keel-cfg-repo-');
    gitRepo(repo);
    sub = join(repo, 'packages', 'app');
    mkdirSync(sub, { recursive: true });
    mkdirSync(join(xdg, 'opencode'), { recursive: true });
    writeFileSync(join(xdg, 'opencode', 'opencode.json'), JSON.stringify({ theme: 'global-theme', model: 'anthropic/claude-sonnet-4-5', username: 'someone' }));
    writeFileSync(join(repo, 'prompt.txt'), 'Be "brief".\n');
    writeFileSync(
      join(repo, 'opencode.jsonc'),
      `{
  // project settings
  "theme": "repo-theme",
  "small_model": "{env:KEEL_CFG_SMALL}",
  "agent": { "build": { "prompt": "{file:./prompt.txt}", }, },
  "plugin": ["a"],
}
`,
    );
    writeFileSync(join(sub, 'opencode.json'), JSON.stringify({ theme: 'sub-theme', plugin: ['b'] }));
    restoreEnv = setEnv({ XDG_CONFIG_HOME: xdg, KEEL_CFG_SMALL: 'openai/gpt-5-nano', OPENCODE_CONFIG: undefined, OPENCODE_CONFIG_CONTENT: undefined });
    keel = await startKeel();
  });

  afterAll(async () => {
    await keel.close();
    restoreEnv();
    for (const d of [xdg, repo]) rmSync(d, { recursive: true, force: true });
  });

  it('merges global, worktree and nearer files, with JSONC and substitutions', async () => {
    const client = createOpencodeClient({ baseUrl: keel.url, directory: sub });
    const { data, response } = await client.config.get();
    expect(response.status).toBe(200);
    expectReferenceSchema(data, 'Config');
    expect(data).toMatchObject({
      theme: 'sub-theme',
      model: 'anthropic/claude-sonnet-4-5',
      small_model: 'openai/gpt-5-nano',
      username: 'someone',
      agent: { build: { prompt: 'Be "brief".' } },
      plugin: ['a', 'b'],
    });
    expect(data?.keybinds?.leader).toBe('ctrl+x');

    const root = createOpencodeClient({ baseUrl: keel.url, directory: repo });
    expect((await root.config.get()).data?.theme).toBe('repo-theme');
  });

  it('honours OPENCODE_CONFIG below project files and OPENCODE_CONFIG_CONTENT above them', async () => {
    const dir = tempDir('keel-cfg-env-');
    writeFileSync(join(dir, 'extra.json'), JSON.stringify({ theme: 'from-file', share: 'disabled' }));
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify({ theme: 'project', autoupdate: false }));
    const restore = setEnv({ OPENCODE_CONFIG: join(dir, 'extra.json'), OPENCODE_CONFIG_CONTENT: JSON.stringify({ autoupdate: true }) });
    try {
      const { data } = await createOpencodeClient({ baseUrl: keel.url, directory: dir }).config.get();
      expect(data).toMatchObject({ theme: 'project', share: 'disabled', autoupdate: true });
    } finally {
      restore();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 400 naming the file and key of an invalid config, and other routes keep working', async () => {
    const dir = tempDir('keel-cfg-bad-');
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify({ provider: { local: { options: {}, bogus: 1 } } }));
    const response = await fetch(`${keel.url}/config?directory=${encodeURIComponent(dir)}`);
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.name).toBe('ConfigInvalidError');
    expect(body.data.path).toBe(join(dir, 'opencode.json'));
    expect(body.data.issues[0].path).toEqual(['provider', 'local', 'bogus']);
    expect(body.data.message).toContain('provider.local.bogus');

    writeFileSync(join(dir, 'opencode.json'), '{ "theme": ');
    const broken = await fetch(`${keel.url}/config?directory=${encodeURIComponent(dir)}`);
    expect(broken.status).toBe(400);
    expect((await broken.json()).name).toBe('ConfigJsonError');

    const path = await fetch(`${keel.url}/path?directory=${encodeURIComponent(dir)}`);
    expect(path.status).toBe(200);
    rmSync(dir, { recursive: true, force: true });
  });

  it('PATCH merges into the nearest project file keeping comments, disposes the instance and the next GET reads it', async () => {
    const client = createOpencodeClient({ baseUrl: keel.url, directory: repo });
    await client.config.get();
    const events = await SseClient.open(`${keel.url}/event?directory=${encodeURIComponent(repo)}`);
    const { data, response } = await client.config.update({ config: { theme: 'patched', agent: { build: { temperature: 0.2 } } } });
    expect(response.status).toBe(200);
    expectReferenceSchema(data, 'Config');
    expect(data).toMatchObject({ theme: 'patched', agent: { build: { temperature: 0.2, prompt: 'Be "brief".' } } });
    await events.next((f) => f.type === 'server.instance.disposed' && f.properties.directory === repo);
    events.close();

    const text = readFileSync(join(repo, 'opencode.jsonc'), 'utf8');
    expect(text).toContain('// project settings');
    expect(text).toContain('{file:./prompt.txt}');
    expect(text).toContain('"temperature": 0.2');
    expect((await client.config.get()).data?.theme).toBe('patched');
  });

  it('PATCH creates opencode.json in a directory without config and rejects invalid bodies', async () => {
    const dir = tempDir('keel-cfg-new-');
    const client = createOpencodeClient({ baseUrl: keel.url, directory: dir });
    const { data } = await client.config.update({ config: { model: 'openai/gpt-5' } });
    expect(data?.model).toBe('openai/gpt-5');
    expect(JSON.parse(readFileSync(join(dir, 'opencode.json'), 'utf8'))).toEqual({ model: 'openai/gpt-5' });

    await Promise.all([client.config.update({ config: { theme: 'one' } }), client.config.update({ config: { username: 'two' } })]);
    expect(JSON.parse(readFileSync(join(dir, 'opencode.json'), 'utf8'))).toEqual({ model: 'openai/gpt-5', theme: 'one', username: 'two' });

    const bad = await fetch(`${keel.url}/config?directory=${encodeURIComponent(dir)}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ nope: true }),
    });
    expect(bad.status).toBe(400);

    // Merged key by key into an existing map, 200,000 keys were a 500 (stack overflow), not a 400.
    await client.config.update({ config: { agent: { build: { temperature: 0.1 } } } });
    const agents = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`a${i}`, { temperature: 0.5 }]));
    const wide = await fetch(`${keel.url}/config?directory=${encodeURIComponent(dir)}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent: agents }),
    });
    expect({ status: wide.status, body: await wide.json() }).toMatchObject({
      status: 400,
      body: { success: false, error: [{ message: 'a config PATCH may change at most 1000 keys (this one changes 200000)' }] },
    });
    expect(JSON.parse(readFileSync(join(dir, 'opencode.json'), 'utf8')).agent).toEqual({ build: { temperature: 0.1 } });

    // A new key takes its whole value in one edit: jsonc's formatter, quadratic in the value's size,
    // held the event loop for minutes on such a map. The file keeps the usual two-space layout.
    const commands = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, { template: `run ${i}`, subtask: i % 2 === 0 }]));
    const { data: big } = await client.config.update({ config: { command: commands(10_000) } });
    expect(Object.keys(big?.command ?? {})).toHaveLength(10_000);
    const text = readFileSync(join(dir, 'opencode.json'), 'utf8');
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
    expect(JSON.parse(text).command.c9999).toEqual({ template: 'run 9999', subtask: false });

    // Every later request parses the file (and each edit re-parses it): beyond 1 MiB it is a 400 and the file stays.
    const huge = await fetch(`${keel.url}/config?directory=${encodeURIComponent(dir)}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ theme: 't'.repeat(2 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(400);
    expect((await huge.json()).error[0].message).toMatch(/^a config file may hold at most 1048576 bytes \(this PATCH makes \d+\)$/);
    expect(readFileSync(join(dir, 'opencode.json'), 'utf8')).toBe(text);
    rmSync(dir, { recursive: true, force: true });
  });

  it('outside git, config in a parent of the directory has no effect (a stray /tmp/opencode.json steers nothing)', async () => {
    const parent = tempDir('keel-cfg-stray-');
    const project = join(parent, 'scratch');
    mkdirSync(join(parent, '.opencode', 'command'), { recursive: true });
    mkdirSync(project);
    writeFileSync(join(parent, 'opencode.json'), JSON.stringify({ theme: 'stray', agent: { build: { disable: true } } }));
    writeFileSync(join(parent, '.opencode', 'command', 'stray.md'), '---\ndescription: stray\n---\nstray');
    writeFileSync(join(project, 'opencode.json'), JSON.stringify({ username: 'scratch' }));
    try {
      const client = createOpencodeClient({ baseUrl: keel.url, directory: project });
      const { data } = await client.config.get();
      expect(data?.username).toBe('scratch');
      expect(data?.theme).toBe('global-theme');
      expect(data?.agent?.build).toBeUndefined();
      const commands = (await client.command.list()).data ?? [];
      expect(commands.map((c) => c.name)).not.toContain('stray');
      const agents = (await client.app.agents()).data ?? [];
      expect(agents.map((a) => a.name)).toContain('build');
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe('config: the machine running the tests', () => {
  it("never reaches a test: the run has its own empty home and config home, and no OPENCODE_* variables", async () => {
    const keel = await startKeel();
    try {
      const dir = tempDir('keel-cfg-machine-');
      const { data } = await createOpencodeClient({ baseUrl: keel.url, directory: dir }).path.get();
      const machineRoot = join(tmpdir(), 'keel-machine-');
      expect(data?.home.startsWith(machineRoot)).toBe(true);
      expect(data?.config.startsWith(machineRoot)).toBe(true);
      // Chromium (the browser tests, same run) leaves its font cache in the run's home: nothing else.
      expect(readdirSync(data!.home).filter((name) => name !== '.cache')).toEqual([]);
      expect(Object.keys(process.env).filter((k) => k.startsWith('OPENCODE_'))).toEqual([]);
      rmSync(dir, { recursive: true, force: true });
    } finally {
      await keel.close();
    }
  });
});
