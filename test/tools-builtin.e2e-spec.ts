import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ToolRegistry } from '../src/tools/tool-registry.service';
import type { PermitRequest, ToolContext } from '../src/tools/tool';
import { PermissionDeniedError } from '../src/tools/tool';
import { resolvePermission } from '../src/tools/permission-policy';
import { startKeel, tempDir, TestKeel } from './support/keel';

/** Alive and not a zombie (a container's PID 1 may never reap orphans). */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('tools: built-in implementations on real files and processes', () => {
  let keel: TestKeel;
  let registry: ToolRegistry;
  let dir: string;
  let outside: string;

  beforeAll(async () => {
    keel = await startKeel();
    registry = keel.keel.app.get(ToolRegistry);
    dir = tempDir('keel-tools-work-');
    outside = tempDir('keel-tools-outside-');
  });

  afterAll(async () => {
    await keel.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  function context(overrides: Partial<ToolContext> = {}) {
    const permits: PermitRequest[] = [];
    const updates: { title?: string; metadata?: Record<string, unknown> }[] = [];
    const events: { type: string; properties: unknown }[] = [];
    const ctx: ToolContext = {
      sessionID: 'ses_test',
      messageID: 'msg_test',
      callID: 'call_1',
      agent: 'build',
      directory: dir,
      worktree: dir,
      abort: new AbortController().signal,
      metadata: (u) => updates.push(u),
      permit: (request) => {
        permits.push(request);
        return resolvePermission(undefined, request) === 'allow' ? Promise.resolve() : Promise.reject(new PermissionDeniedError('rejected', true));
      },
      publish: (type, properties) => events.push({ type, properties }),
      ...overrides,
    };
    return { ctx, permits, updates, events };
  }

  const run = (id: string, args: unknown, ctx: ToolContext) => registry.get(id)!.execute(registry.get(id)!.parameters.parse(args), ctx);

  it('write, read with line numbers, offset and limit', async () => {
    const { ctx, events } = context();
    const written = await run('write', { filePath: 'notes/a.txt', content: 'one\ntwo\nthree\nfour\n' }, ctx);
    expect(written.title).toBe('notes/a.txt');
    expect(readFileSync(join(dir, 'notes/a.txt'), 'utf8')).toBe('one\ntwo\nthree\nfour\n');
    expect(events).toEqual([{ type: 'file.edited', properties: { file: join(dir, 'notes/a.txt') } }]);

    const all = await run('read', { filePath: join(dir, 'notes/a.txt') }, ctx);
    expect(all.output).toBe('<file>\n00001| one\n00002| two\n00003| three\n00004| four\n\n(End of file - total 4 lines)\n</file>');
    const window = await run('read', { filePath: 'notes/a.txt', offset: 1, limit: 2 }, ctx);
    expect(window.output).toContain('00002| two\n00003| three\n');
    expect(window.output).toContain("Use 'offset' parameter to read beyond line 3");
  });

  it('read refuses binary files and names missing ones with suggestions', async () => {
    const { ctx } = context();
    writeFileSync(join(dir, 'blob.dat2'), Buffer.from([1, 2, 0, 3, 4]));
    await expect(run('read', { filePath: 'blob.dat2' }, ctx)).rejects.toThrow(`Cannot read binary file: ${join(dir, 'blob.dat2')}`);
    writeFileSync(join(dir, 'config.json'), '{}');
    await expect(run('read', { filePath: 'config.jso' }, ctx)).rejects.toThrow(/File not found: .*config\.jso\n\nDid you mean one of these\?\n.*config\.json/);
  });

  it('edit replaces exactly once, all occurrences on request, and explains absent or ambiguous text', async () => {
    const { ctx } = context();
    writeFileSync(join(dir, 'e.ts'), 'let a = 1;\nlet b = 1;\n');
    await expect(run('edit', { filePath: 'e.ts', oldString: '= 1', newString: '= 2' }, ctx)).rejects.toThrow('Found multiple matches for oldString');
    await expect(run('edit', { filePath: 'e.ts', oldString: 'let c', newString: 'let d' }, ctx)).rejects.toThrow('oldString not found in content');
    await expect(run('edit', { filePath: 'e.ts', oldString: 'x', newString: 'x' }, ctx)).rejects.toThrow('oldString and newString must be different');
    await run('edit', { filePath: 'e.ts', oldString: 'let a = 1', newString: 'const a = 1' }, ctx);
    expect(readFileSync(join(dir, 'e.ts'), 'utf8')).toBe('const a = 1;\nlet b = 1;\n');
    const all = await run('edit', { filePath: 'e.ts', oldString: '1;', newString: '3;', replaceAll: true }, ctx);
    expect(all.metadata).toMatchObject({ replacements: 2 });
    expect(readFileSync(join(dir, 'e.ts'), 'utf8')).toBe('const a = 3;\nlet b = 3;\n');
  });

  it('glob, grep and list search the tree and skip .git and node_modules', async () => {
    const { ctx } = context();
    mkdirSync(join(dir, 'src/deep'), { recursive: true });
    mkdirSync(join(dir, 'node_modules/x'), { recursive: true });
    writeFileSync(join(dir, 'src/deep/one.ts'), 'export const needle = 1;\n');
    writeFileSync(join(dir, 'src/two.js'), 'const hay = 2;\nconst needle = 3;\n');
    writeFileSync(join(dir, 'node_modules/x/needle.ts'), 'needle');
    const ts = await run('glob', { pattern: '**/*.ts' }, ctx);
    expect(ts.output.split('\n').sort()).toEqual([join(dir, 'e.ts'), join(dir, 'src/deep/one.ts')].sort());
    const braces = await run('glob', { pattern: 'src/**/*.{ts,js}' }, ctx);
    expect(braces.output.split('\n').sort()).toEqual([join(dir, 'src/deep/one.ts'), join(dir, 'src/two.js')].sort());
    expect((await run('glob', { pattern: '*.nothing' }, ctx)).output).toBe('No files found');

    const grep = await run('grep', { pattern: 'needle\\s=', include: '*.{ts,js}' }, ctx);
    expect(grep.output).toContain('Found 2 matches');
    expect(grep.output).toContain(`${join(dir, 'src/two.js')}:\n  Line 2: const needle = 3;`);
    expect(grep.output).not.toContain('node_modules');
    await expect(run('grep', { pattern: '(' }, ctx)).rejects.toThrow('Invalid regular expression');

    const list = await run('list', { path: 'src' }, ctx);
    expect(list.output).toBe(`${join(dir, 'src')}/\n  deep/\n    one.ts\n  two.js`);
  });

  it('paths outside the directory ask for external_directory, and a refusal fails the call', async () => {
    const { ctx, permits } = context();
    writeFileSync(join(outside, 'secret.txt'), 'x');
    await expect(run('read', { filePath: join(outside, 'secret.txt') }, ctx)).rejects.toThrow('rejected');
    expect(permits).toEqual([expect.objectContaining({ type: 'external_directory', pattern: [outside, `${outside}/*`] })]);
    await expect(run('write', { filePath: '../escape.txt', content: 'x' }, ctx)).rejects.toThrow('rejected');
    expect(existsSync(join(dir, '../escape.txt'))).toBe(false);
    await expect(run('bash', { command: `rm -rf ${outside}`, description: 'remove' }, ctx)).rejects.toThrow('rejected');
    expect(existsSync(outside)).toBe(true);
  });

  it('bash returns combined output with streamed metadata and asks with derived patterns', async () => {
    const { ctx, permits, updates } = context();
    const result = await run('bash', { command: 'echo out; echo err >&2; git --version >/dev/null && echo ok', description: 'Print things' }, ctx);
    expect(result.output).toBe('out\nerr\nok\n');
    expect(result.metadata).toMatchObject({ exit: 0, description: 'Print things' });
    expect(updates.at(-1)).toEqual({ metadata: { output: 'out\nerr\nok\n', description: 'Print things' } });
    // The rules see each sub-command's words; opencode 1.1+ lists it as written (`patterns`); the approval keys are wider.
    expect(permits.at(-1)).toMatchObject({
      type: 'bash',
      subjects: ['echo out', 'echo err >&2', 'git --version >/dev/null', 'echo ok'],
      patterns: ['echo out', 'echo err >&2', 'git --version >/dev/null', 'echo ok'],
      pattern: ['echo *', 'git *'],
    });
    expect(resolvePermission({ bash: { '*': 'allow', 'git push *': 'ask', 'rm *': 'deny' } }, { type: 'bash', subjects: ['git push origin'], title: '' })).toBe('ask');
    expect(resolvePermission({ bash: { '*': 'allow', 'rm *': 'deny' } }, { type: 'bash', subjects: ['ls', 'rm -rf x'], title: '' })).toBe('deny');
  });

  it('bash asks nothing of its own for cd (as the reference: where it leads is the external_directory check)', async () => {
    mkdirSync(join(dir, 'sub'), { recursive: true });
    const { ctx, permits } = context();
    expect((await run('bash', { command: 'cd sub', description: 'enter' }, ctx)).metadata).toMatchObject({ exit: 0 });
    expect(permits).toEqual([]);
    await run('bash', { command: 'cd sub && ls "a b" | grep x; true', description: 'list' }, ctx);
    expect(permits).toEqual([
      expect.objectContaining({ type: 'bash', subjects: ['ls a b', 'grep x', 'true'], patterns: ['ls "a b"', 'grep x', 'true'], pattern: ['ls *', 'grep *', 'true *'] }),
    ]);
    // What a cd's argument runs asks, as a command of its own.
    await run('bash', { command: 'cd "$(echo sub)"', description: 'enter' }, ctx);
    expect(permits.at(-1)).toMatchObject({ type: 'bash', patterns: ['echo sub'], pattern: ['echo *'] });
    // Quotes and spacing do not get a command past a rule written for its words.
    const rules = { bash: { '*': 'allow' as const, 'git push *': 'deny' as const } };
    const guarded = context({ permit: (request) => (resolvePermission(rules, request) === 'deny' ? Promise.reject(new PermissionDeniedError('denied', false)) : Promise.resolve()) });
    await expect(run('bash', { command: 'git  "push" origin', description: 'push' }, guarded.ctx)).rejects.toThrow('denied');
    // Nor does running it inside another command, a subshell or a compound command.
    for (const command of ['echo $(git push origin)', 'echo `git push`', '(git push)', 'if true; then git push; fi', 'GIT_TRACE=1 git push'])
      await expect(run('bash', { command, description: 'push' }, guarded.ctx)).rejects.toThrow('denied');
  });

  it('edit, write and webfetch name what they ask about: the file from the worktree, the URL', async () => {
    const { ctx, permits } = context();
    await run('write', { filePath: 'asked/w.txt', content: 'w' }, ctx);
    await run('edit', { filePath: 'asked/w.txt', oldString: 'w', newString: 'e' }, ctx);
    expect(permits.map((p) => [p.type, p.subjects])).toEqual([
      ['edit', ['asked/w.txt']],
      ['edit', ['asked/w.txt']],
    ]);
    const refusing = context({ permit: (request) => (permits.push(request), Promise.reject(new PermissionDeniedError('rejected', true))) });
    await expect(run('webfetch', { url: 'http://127.0.0.1:9/page', format: 'text' }, refusing.ctx)).rejects.toThrow('rejected');
    expect(permits.at(-1)).toMatchObject({ type: 'webfetch', subjects: ['http://127.0.0.1:9/page'] });
  });

  it('bash caps output, enforces its timeout and kills the whole process group on abort', async () => {
    const { ctx } = context();
    const big = await run('bash', { command: 'head -c 100000 /dev/zero | tr "\\0" a', description: 'big' }, ctx);
    expect(big.output).toContain('Output was cut after 30000 characters');
    const slow = await run('bash', { command: 'sleep 5; echo never', timeout: 300, description: 'slow' }, ctx);
    expect(slow.output).toContain('Command terminated after exceeding the timeout of 300 ms');

    const controller = new AbortController();
    const { ctx: abortable, updates } = context({ abort: controller.signal });
    const pidFile = join(dir, 'grandchild.pid');
    const pending = run('bash', { command: `(sleep 30 & echo $! > ${pidFile}; wait) ; echo started`, description: 'tree' }, abortable);
    for (let i = 0; i < 100 && !(existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim()); i++) await new Promise((r) => setTimeout(r, 50));
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    controller.abort();
    const aborted = await pending;
    expect(aborted.output).toContain('Command aborted by the user');
    expect(updates.length).toBeGreaterThan(0);
    for (let i = 0; i < 60 && isRunning(grandchild); i++) await new Promise((r) => setTimeout(r, 50));
    expect(isRunning(grandchild)).toBe(false);
  });

  it('webfetch refuses loopback addresses unless allowed', async () => {
    const server: Server = createServer((_req, res) => res.setHeader('content-type', 'text/html').end('<html><body><h1>Hi</h1><script>x</script><p>there</p></body></html>')).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const { ctx } = context();
    await expect(run('webfetch', { url, format: 'text' }, ctx)).rejects.toThrow('loopback or private address');
    const permissive = new ToolRegistry({ ...keel.settings, allowPrivateFetch: true });
    const page = await permissive.get('webfetch')!.execute({ url, format: 'markdown' }, ctx);
    expect(page.output).toBe('# Hi\nthere');
    server.close();
    expect(execFileSync('echo', ['done']).toString()).toBe('done\n');
  });
});
