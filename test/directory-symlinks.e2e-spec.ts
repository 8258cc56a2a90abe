import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expectSessionBadRequest } from './support/error-bodies';
import { startKeel, tempDir, TestKeel } from './support/keel';
import { ScriptedProvider } from './support/scripted-provider';

/** A session-dialect 400 (`BadRequestError`) whose first issue names `field`. */
async function expectBadRequest(response: Response, field: string): Promise<string> {
  const text = await response.text();
  expect(response.status).toBe(400);
  expectSessionBadRequest(JSON.parse(text), field);
  return text;
}

/**
 * KEEL_ALLOWED_DIRECTORIES holds one root; symbolic links in it lead to a directory outside (which
 * must never be read or written) and to a directory inside (which must keep working).
 */
describe('allowed directories: symbolic links are judged by where they lead', () => {
  const SECRET = 'outside secret needle';
  let keel: TestKeel;
  let scripted: ScriptedProvider;
  let root: string;
  let outside: string;
  let project: string;
  let linkOut: string;
  let linkIn: string;
  let outsideBefore: string[];

  const q = (directory: string) => `directory=${encodeURIComponent(directory)}`;
  const json = (method: string, body: unknown) => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const client = (directory: string) => createOpencodeClient({ baseUrl: keel.url, directory });

  beforeAll(async () => {
    root = tempDir('keel-dirs-root-');
    outside = tempDir('keel-dirs-outside-');
    writeFileSync(join(outside, 'secret.txt'), `${SECRET}\n`);
    writeFileSync(join(outside, 'config.json'), '{ "theme": "outside" }\n');
    project = join(root, 'project');
    mkdirSync(project);
    scripted = await ScriptedProvider.start();
    writeFileSync(
      join(project, 'opencode.json'),
      JSON.stringify({ ...scripted.config(), permission: { external_directory: 'deny' } }),
    );
    writeFileSync(join(project, 'inside.txt'), 'inside needle\n');
    symlinkSync(outside, join(project, 'out'));
    linkOut = join(root, 'link-out');
    symlinkSync(outside, linkOut);
    linkIn = join(root, 'link-in');
    symlinkSync(project, linkIn);
    outsideBefore = readdirSync(outside).sort();
    keel = await startKeel({ env: { KEEL_ALLOWED_DIRECTORIES: root } });
  });

  afterEach(() => {
    // Nothing was ever written outside the allowed root, whatever the test did.
    expect(readdirSync(outside).sort()).toEqual(outsideBefore);
    expect(readFileSync(join(outside, 'config.json'), 'utf8')).toBe('{ "theme": "outside" }\n');
  });

  afterAll(async () => {
    await keel.close();
    await scripted.close();
    for (const d of [root, outside]) rmSync(d, { recursive: true, force: true });
  });

  it('refuses a directory whose link leads out, in the query and in the header, before reading anything', async () => {
    const viaQuery = await fetch(`${keel.url}/file/content?${q(linkOut)}&path=secret.txt`);
    expect(await expectBadRequest(viaQuery, 'directory')).not.toContain(SECRET);
    const viaHeader = await fetch(`${keel.url}/file/content?path=secret.txt`, {
      headers: { 'x-opencode-directory': encodeURIComponent(linkOut) },
    });
    expect(await expectBadRequest(viaHeader, 'directory')).not.toContain(SECRET);
    // Below the link too, and with a trailing slash.
    await expectBadRequest(await fetch(`${keel.url}/file?${q(`${linkOut}/`)}&path=.`), 'directory');
    mkdirSync(join(outside, 'nested'));
    try {
      await expectBadRequest(await fetch(`${keel.url}/path?${q(join(linkOut, 'nested'))}`), 'directory');
    } finally {
      rmSync(join(outside, 'nested'), { recursive: true });
    }
  });

  it('refuses text and file search through the link', async () => {
    const text = await fetch(`${keel.url}/find?${q(linkOut)}&pattern=needle`);
    expect(await expectBadRequest(text, 'directory')).not.toContain(SECRET);
    const files = await fetch(`${keel.url}/find/file?${q(linkOut)}&query=secret`);
    expect(await expectBadRequest(files, 'directory')).not.toContain('secret.txt');
  });

  it('refuses PATCH /config through the link, and a project config file that is itself a link out', async () => {
    await expectBadRequest(await fetch(`${keel.url}/config?${q(linkOut)}`, json('PATCH', { theme: 'patched' })), 'directory');

    const linked = join(root, 'linked-config');
    mkdirSync(linked);
    symlinkSync(join(outside, 'config.json'), join(linked, 'opencode.json'));
    try {
      await expectBadRequest(await fetch(`${keel.url}/config?${q(linked)}`, json('PATCH', { theme: 'patched' })), 'directory');
      // The link is left as it was.
      expect(lstatSync(join(linked, 'opencode.json')).isSymbolicLink()).toBe(true);
    } finally {
      rmSync(linked, { recursive: true });
    }
  });

  it('keeps links that stay inside working: the directory as named, config written through the link', async () => {
    const { data: path } = await client(linkIn).path.get();
    expect(path!.directory).toBe(linkIn);
    const { data: content } = await client(linkIn).file.read({ path: 'inside.txt' });
    expect(content!.content).toBe('inside needle');

    // A config file that links to another file inside the root is edited where it is; the link stays.
    const shared = join(root, 'shared');
    mkdirSync(shared);
    writeFileSync(join(shared, 'team.json'), '{\n  // team settings\n  "theme": "team"\n}\n');
    symlinkSync(join(shared, 'team.json'), join(shared, 'opencode.json'));
    try {
      const patched = await fetch(`${keel.url}/config?${q(shared)}`, json('PATCH', { username: 'linked' }));
      expect(patched.status).toBe(200);
      expect(lstatSync(join(shared, 'opencode.json')).isSymbolicLink()).toBe(true);
      const text = readFileSync(join(shared, 'team.json'), 'utf8');
      expect(text).toContain('// team settings');
      expect(JSON.parse(text.replace(/\/\/.*\n/, ''))).toEqual({ theme: 'team', username: 'linked' });
    } finally {
      rmSync(shared, { recursive: true });
    }
  });

  it('refuses a terminal whose cwd (or directory) leads out through a link, and starts one through a link inside', async () => {
    const create = (directory: string, body: unknown) => fetch(`${keel.url}/pty?${q(directory)}`, json('POST', body));
    await expectBadRequest(await create(project, { command: 'touch', args: ['made-by-pty'], cwd: 'out' }), 'cwd');
    await expectBadRequest(await create(project, { command: 'touch', args: ['made-by-pty'], cwd: linkOut }), 'cwd');
    await expectBadRequest(await create(linkOut, { command: 'touch', args: ['made-by-pty'] }), 'directory');

    const inside = await create(project, { command: 'cat', cwd: linkIn });
    expect(inside.status).toBe(200);
    const pty = (await inside.json()) as { id: string; cwd: string };
    expect(pty.cwd).toBe(linkIn);
    await fetch(`${keel.url}/pty/${pty.id}?${q(project)}`, { method: 'DELETE' });
  });

  it('re-checks the real path when the shell runs, so a link swapped after the directory check leads nowhere', async () => {
    const swapped = join(root, 'swapped');
    symlinkSync(project, swapped);
    try {
      const created = await fetch(`${keel.url}/session?${q(swapped)}`, json('POST', {}));
      expect(created.status).toBe(200);
      const { id } = (await created.json()) as { id: string };
      // The directory was checked (and remembered for a second) through the link; now it leads out.
      unlinkSync(swapped);
      symlinkSync(outside, swapped);
      const shell = await fetch(`${keel.url}/session/${id}/shell?${q(swapped)}`, json('POST', { agent: 'build', command: 'touch made-by-shell' }));
      await expectBadRequest(shell, 'directory');
      const pty = await fetch(`${keel.url}/pty?${q(swapped)}`, json('POST', { command: 'touch', args: ['made-by-pty'] }));
      await expectBadRequest(pty, 'directory');
      const read = await fetch(`${keel.url}/file/content?${q(swapped)}&path=secret.txt`);
      expect(await expectBadRequest(read, 'directory')).not.toContain(SECRET);
      await expectBadRequest(await fetch(`${keel.url}/config?${q(swapped)}`, json('PATCH', { theme: 'patched' })), 'directory');
    } finally {
      unlinkSync(swapped);
    }
  });

  it('treats a tool path or bash workdir through a link out as outside the session directory', async () => {
    const sdk = client(project);
    const { data: session } = await sdk.session.create({});
    const toolError = async (steps: { tool: string; args: Record<string, unknown> }) => {
      scripted.reply({ steps: [steps] }, { steps: [{ text: 'could not' }] });
      await sdk.session.prompt({ sessionID: session!.id, parts: [{ type: 'text', text: 'go' }] });
      const { data: messages } = await sdk.session.messages({ sessionID: session!.id });
      const tool = messages!.flatMap((m) => m.parts).filter((p) => p.type === 'tool').at(-1) as any;
      expect(tool.tool).toBe(steps.tool);
      expect(tool.state.status).toBe('error');
      return JSON.stringify(tool.state);
    };
    // `external_directory` is denied in this project's config: leaving the directory fails the tool.
    await toolError({ tool: 'bash', args: { command: 'touch made-by-bash', workdir: 'out', description: 'Touch' } });
    await toolError({ tool: 'bash', args: { command: 'touch out/made-by-bash', description: 'Touch' } });
    expect(await toolError({ tool: 'read', args: { filePath: 'out/secret.txt' } })).not.toContain(SECRET);
    await toolError({ tool: 'write', args: { filePath: 'out/made-by-write.txt', content: 'x' } });
    const sent = JSON.stringify(scripted.prompts.map((p) => p.body.messages));
    expect(sent).not.toContain(SECRET);
  });

  it('refuses an attached file outside the allowed roots, named or reached through a link, before storing anything', async () => {
    const { data: session } = await client(project).session.create({});
    const prompted = scripted.prompts.length;
    for (const file of [join(outside, 'secret.txt'), join(project, 'out', 'secret.txt')]) {
      const body = { parts: [{ type: 'file', mime: 'text/plain', url: pathToFileURL(file).href, filename: 'secret.txt' }] };
      const response = await fetch(`${keel.url}/session/${session!.id}/message?${q(project)}`, json('POST', body));
      const text = await response.text();
      expect(text).not.toContain(SECRET);
      expect(response.status).toBe(400);
      expect((JSON.parse(text) as { error: { path: unknown[] }[] }).error[0].path).toEqual(['parts', 0, 'url']);
    }
    const { data: messages } = await client(project).session.messages({ sessionID: session!.id });
    expect(messages).toEqual([]);
    expect(scripted.prompts.length).toBe(prompted);
  });

  /**
   * Another process swaps `file` between a regular file holding `inside flip` and a link to the secret
   * outside, as fast as it can (rename is atomic, so the name always exists as one or the other).
   */
  function flipBetweenFileAndLink(file: string): ChildProcess {
    writeFileSync(file, 'inside flip\n');
    return spawn(process.execPath, [
      '-e',
      `const fs = require('fs'); const [file, target] = process.argv.slice(1);
       fs.writeFileSync(file + '.file', 'inside flip\\n'); try { fs.unlinkSync(file + '.link'); } catch {}
       fs.symlinkSync(target, file + '.link');
       for (;;) { fs.copyFileSync(file + '.file', file + '.tmp'); fs.renameSync(file + '.tmp', file);
         fs.symlinkSync(target, file + '.l2'); fs.renameSync(file + '.l2', file); }`,
      file,
      join(outside, 'secret.txt'),
    ], { stdio: 'ignore' });
  }

  it('reads the file it checked: a file flipped between itself and a link out while /file/content reads it never yields the outside file', async () => {
    const flipper = flipBetweenFileAndLink(join(project, 'flip.txt'));
    try {
      const answers = { inside: 0, refused: 0, leaked: 0, other: 0 };
      for (let i = 0; i < 400; i++) {
        const response = await fetch(`${keel.url}/file/content?${q(project)}&path=flip.txt`);
        const text = await response.text();
        if (text.includes(SECRET)) answers.leaked++;
        else if (response.status === 200 && text.includes('inside flip')) answers.inside++;
        else if (response.status === 400) answers.refused++;
        else answers.other++;
      }
      expect(answers.leaked).toBe(0);
      expect(answers.other).toBe(0);
      // The race was really run: both sides were met.
      expect(answers.inside).toBeGreaterThan(0);
      expect(answers.refused).toBeGreaterThan(0);
    } finally {
      flipper.kill('SIGKILL');
      rmSync(join(project, 'flip.txt'), { force: true });
    }
  });

  it('searches the file it checked: text search over a file flipped between itself and a link out never finds the outside file', async () => {
    const flipper = flipBetweenFileAndLink(join(project, 'flip-search.txt'));
    try {
      const answers = { inside: 0, skipped: 0, leaked: 0 };
      for (let i = 0; i < 200; i++) {
        const response = await fetch(`${keel.url}/find?${q(project)}&pattern=${encodeURIComponent('flip|secret')}`);
        expect(response.status).toBe(200);
        const text = await response.text();
        const flipped = (JSON.parse(text) as { path: { text: string } }[]).filter((match) => match.path.text === 'flip-search.txt');
        if (text.includes(SECRET)) answers.leaked++;
        else if (flipped.length > 0) answers.inside++;
        else answers.skipped++;
      }
      expect(answers.leaked).toBe(0);
      // The race was really run: the file was searched as itself and skipped as a link out.
      expect(answers.inside).toBeGreaterThan(0);
      expect(answers.skipped).toBeGreaterThan(0);
    } finally {
      flipper.kill('SIGKILL');
      rmSync(join(project, 'flip-search.txt'), { force: true });
    }
  });

  it('attaches the file it checked: a prompt attaching a file flipped between itself and a link out never stores the outside file', async () => {
    const { data: session } = await client(project).session.create({});
    const file = join(project, 'flip-attach.txt');
    const flipper = flipBetweenFileAndLink(file);
    try {
      const answers = { stored: 0, refused: 0, leaked: 0, other: 0 };
      for (let i = 0; i < 150; i++) {
        const body = { noReply: true, parts: [{ type: 'file', mime: 'text/plain', url: pathToFileURL(file).href, filename: 'flip-attach.txt' }] };
        const response = await fetch(`${keel.url}/session/${session!.id}/message?${q(project)}`, json('POST', body));
        const text = await response.text();
        if (text.includes(SECRET)) answers.leaked++;
        else if (response.status === 200 && text.includes('inside flip')) answers.stored++;
        // Refused by the check before the answer began (400), or once it had (the message says so).
        else if (response.status === 400 || (response.status === 200 && text.includes('outside the directories this server may use'))) answers.refused++;
        else answers.other++;
      }
      expect(answers.leaked).toBe(0);
      expect(answers.other).toBe(0);
      // The race was really run: the file was attached as itself and refused as a link out.
      expect(answers.stored).toBeGreaterThan(0);
      expect(answers.refused).toBeGreaterThan(0);
      const { data: messages } = await client(project).session.messages({ sessionID: session!.id });
      expect(JSON.stringify(messages)).not.toContain(SECRET);
    } finally {
      flipper.kill('SIGKILL');
      rmSync(file, { force: true });
    }
  });
});
