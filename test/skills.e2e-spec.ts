import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigHome, isolatedConfigHome, writeFiles } from './support/config-home';
import { setEnv } from './support/env';
import { startKeel, tempDir, TestKeel } from './support/keel';
import { expectReferenceResponse, expectReferenceSchema } from './support/reference-schema';
import { ScriptedProvider } from './support/scripted-provider';

const skill = (name: string, description: string | undefined, body: string) =>
  `---\nname: ${name}\n${description === undefined ? '' : `description: ${description}\n`}---\n${body}`;

/**
 * Skills (`SKILL.md` files) where opencode 1.18 reads them, as its TUI lists them (`/skills`: `GET /skill`;
 * at start `GET /api/skill`) and runs them (a skill is a `/name` command: `GET /command` lists it with
 * `source: "skill"`).
 */
describe('skills: SKILL.md files from the places opencode reads them (issue 22)', () => {
  let keel: TestKeel;
  let home: ConfigHome;
  let userHome: string;
  let extra: string;
  let restoreEnv: () => void;
  let scripted: ScriptedProvider;

  beforeAll(async () => {
    scripted = await ScriptedProvider.start();
    userHome = tempDir('keel-skills-home-');
    extra = tempDir('keel-skills-extra-');
    writeFiles(userHome, {
      '.claude/skills/shared/SKILL.md': skill('shared', 'A skill other agent tools share', 'Shared steps.\n'),
      '.agents/skills/agents-one/SKILL.md': skill('agents-one', 'From ~/.agents', 'Agents.\n'),
    });
    writeFiles(extra, {
      'deep/er/SKILL.md': skill('from-path', 'Found through skills.paths', 'Path skill.\n'),
      'README.md': 'not a skill\n',
    });
    home = isolatedConfigHome({
      repoPrefix: 'keel-skills-',
      global: { 'skill/global-one/SKILL.md': skill('global-one', 'In the global config directory', 'Global.\n') },
      project: {
        'opencode.json': JSON.stringify({ ...scripted.config(), skills: { paths: [extra, './no-such-folder'], urls: ['https://example.invalid/skills/'] } }),
        '.opencode/skill/greet/SKILL.md': skill('greet', 'Say hello nicely', 'Say hello to $ARGUMENTS.\n\nThen wave.\n'),
        '.opencode/skills/review-code/SKILL.md': skill('review-code', 'Review the changes', 'Look at the diff.\n'),
        // Replaced in place by the project's later one of the same name.
        '.claude/skills/shared/SKILL.md': skill('shared', 'The project overrides the home one', 'Project steps.\n'),
        '.opencode/skill/no-name/SKILL.md': '---\ndescription: nameless\n---\nbody\n',
        '.opencode/skill/bad-yaml/SKILL.md': '---\nname: [unclosed\n---\nbody\n',
        '.opencode/skill/no-frontmatter/SKILL.md': 'Just text.\n',
        '.opencode/skill/bare/SKILL.md': skill('bare', undefined, 'No description.\n'),
      },
    });
    restoreEnv = setEnv({ HOME: userHome });
    keel = await startKeel();
  });

  afterAll(async () => {
    await keel.close();
    restoreEnv();
    home.restore();
    await scripted.close();
    for (const dir of [userHome, extra]) rmSync(dir, { recursive: true, force: true });
  });

  const get = async (path: string, dir = home.repo) => {
    const res = await fetch(`${keel.url}${path}${path.includes('?') ? '&' : '?'}directory=${encodeURIComponent(dir)}`);
    return { status: res.status, body: (await res.json()) };
  };

  it('lists every skill with its frontmatter and body, in opencode’s order; files without a name or with broken YAML are no skills', async () => {
    const { status, body } = await get('/skill');
    expect(status).toBe(200);
    expectReferenceResponse(body, 'app.skills');
    expect(body).toEqual([
      { name: 'shared', description: 'The project overrides the home one', location: join(home.repo, '.claude/skills/shared/SKILL.md'), content: 'Project steps.\n' },
      { name: 'agents-one', description: 'From ~/.agents', location: join(userHome, '.agents/skills/agents-one/SKILL.md'), content: 'Agents.\n' },
      { name: 'global-one', description: 'In the global config directory', location: join(home.xdg, 'opencode/skill/global-one/SKILL.md'), content: 'Global.\n' },
      { name: 'bare', location: join(home.repo, '.opencode/skill/bare/SKILL.md'), content: 'No description.\n' },
      { name: 'greet', description: 'Say hello nicely', location: join(home.repo, '.opencode/skill/greet/SKILL.md'), content: 'Say hello to $ARGUMENTS.\n\nThen wave.\n' },
      { name: 'review-code', description: 'Review the changes', location: join(home.repo, '.opencode/skills/review-code/SKILL.md'), content: 'Look at the diff.\n' },
      { name: 'from-path', description: 'Found through skills.paths', location: join(extra, 'deep/er/SKILL.md'), content: 'Path skill.\n' },
    ]);
  });

  it('answers /api/skill with the same skills in the v2 envelope', async () => {
    const { status, body } = await get('/api/skill');
    expect(status).toBe(200);
    expectReferenceResponse(body, 'v2.skill.list');
    const { data: project } = await createOpencodeClient({ baseUrl: keel.url, directory: home.repo }).project.current();
    expect(body.location).toEqual({ directory: home.repo, project: { id: project!.id, directory: home.repo } });
    expect(body.data).toEqual((await get('/skill')).body);
  });

  it('reads the skills of a subdirectory from its parents up to the worktree, and none outside the worktree', async () => {
    writeFiles(home.repo, { 'pkg/.agents/skills/pkg-only/SKILL.md': skill('pkg-only', 'Only in pkg', 'Pkg.\n') });
    const inside = await get('/skill', join(home.repo, 'pkg'));
    expect(inside.body.map((s: any) => s.name)).toEqual(['shared', 'agents-one', 'pkg-only', 'global-one', 'bare', 'greet', 'review-code', 'from-path']);
    const plain = tempDir('keel-skills-plain-');
    const outside = await get('/skill', plain);
    expect(outside.body.map((s: any) => s.name)).toEqual(['shared', 'agents-one', 'global-one']);
    rmSync(plain, { recursive: true, force: true });
  });

  it('lists skills as commands (source "skill") that run their instructions; /api/command keeps to commands', async () => {
    const { data: commands } = await createOpencodeClient({ baseUrl: keel.url, directory: home.repo }).command.list();
    for (const command of commands!) expectReferenceSchema(command, 'Command');
    const greet = commands!.find((c) => c.name === 'greet');
    expect(greet).toEqual({
      name: 'greet',
      description: 'Say hello nicely',
      source: 'skill',
      template: `Say hello to $ARGUMENTS.\n\nThen wave.\n\n\nBase directory for this skill: ${join(home.repo, '.opencode/skill/greet')}\nRelative paths in this skill (e.g., scripts/, references/) are relative to this base directory.`,
      hints: [],
    });
    expect(commands!.find((c) => c.name === 'init')).toMatchObject({ source: 'command' });

    const v2 = await get('/api/command');
    expectReferenceResponse(v2.body, 'v2.command.list');
    expect(v2.body.data.map((c: any) => c.name)).toEqual(['init', 'review']);

    // The 1.18 TUI's /skills dialog puts `/greet` in the prompt; submitting it runs the command.
    const client = createOpencodeClient({ baseUrl: keel.url, directory: home.repo });
    const { data: session } = await client.session.create({});
    scripted.reply({ steps: [{ text: 'Hello!' }] });
    const { data: result } = await client.session.command({ sessionID: session!.id, command: 'greet', arguments: 'everyone' });
    expect(result!.parts.find((p) => p.type === 'text')).toMatchObject({ text: 'Hello!' });
    const sent = JSON.stringify(scripted.prompts.at(-1)!.body.messages);
    expect(sent).toContain('Say hello to everyone.');
    expect(sent).toContain('Base directory for this skill');
  });

  it('accepts `skills` in config files (opencode 1.18’s key) and still refuses unknown keys', async () => {
    const dir = tempDir('keel-skills-config-');
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify({ skills: { paths: ['x'], nope: true } }));
    const refused = await get('/skill', dir);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ name: 'ConfigInvalidError', data: { issues: [{ path: ['skills', 'nope'], message: 'unknown key' }] } });
    rmSync(dir, { recursive: true, force: true });
  });
});
