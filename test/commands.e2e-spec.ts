import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommandService } from '../src/commands/command.service';
import { InstanceService } from '../src/projects/instance.service';
import { expectReferenceSchema } from './support/reference-schema';
import { ConfigHome, isolatedConfigHome } from './support/config-home';
import { startKeel, tempDir, TestKeel } from './support/keel';

describe('commands: built-ins, config entries and markdown commands with hints', () => {
  let keel: TestKeel;
  let home: ConfigHome;
  let repo: string;

  beforeAll(async () => {
    home = isolatedConfigHome({
      repoPrefix: 'keel-commands-',
      global: { 'command/hello.md': 'Say hello to $1.\n' },
      project: {
        'opencode.jsonc': `{
  // project commands
  "command": {
    "test": { "template": "Run the $2 tests of $1, then $ARGUMENTS and $1 again", "description": "Run tests", "agent": "build", "model": "openai/gpt-5", "subtask": false },
  },
}`,
        '.opencode/command/git/commit.md': '---\ndescription: Commit staged work\nagent: plan\nsubtask: true\n---\nCommit with message $ARGUMENTS\n',
        '.opencode/command/review.md': '---\ndescription: Project review\n---\nReview $1 carefully.\n',
      },
    });
    repo = home.repo;
    keel = await startKeel();
  });

  afterAll(async () => {
    await keel.close();
    home.restore();
  });

  it('lists init and review with their templates and hints', async () => {
    const dir = tempDir('keel-commands-plain-');
    const { data, response } = await createOpencodeClient({ baseUrl: keel.url, directory: dir }).command.list();
    expect(response.status).toBe(200);
    for (const command of data!) expectReferenceSchema(command, 'Command');
    const byName = Object.fromEntries(data!.map((c) => [c.name, c]));
    expect(byName.init).toMatchObject({ description: 'create/update AGENTS.md', hints: ['$ARGUMENTS'] });
    expect(byName.init.template).toContain('AGENTS.md');
    expect(byName.init.template).not.toContain('${path}');
    expect(byName.review).toMatchObject({ subtask: true, hints: ['$ARGUMENTS'] });
    expect(byName.hello).toMatchObject({ template: 'Say hello to $1.', hints: ['$1'] });
    rmSync(dir, { recursive: true, force: true });
  });

  it('merges config and markdown commands, later sources overriding built-ins', async () => {
    const { data } = await createOpencodeClient({ baseUrl: keel.url, directory: repo }).command.list();
    for (const command of data!) expectReferenceSchema(command, 'Command');
    const byName = Object.fromEntries(data!.map((c) => [c.name, c]));
    expect(byName.init.template).toContain(repo);
    expect(byName.test).toEqual({
      name: 'test',
      source: 'command',
      template: 'Run the $2 tests of $1, then $ARGUMENTS and $1 again',
      description: 'Run tests',
      agent: 'build',
      model: 'openai/gpt-5',
      subtask: false,
      hints: ['$1', '$2', '$ARGUMENTS'],
    });
    expect(byName['git/commit']).toMatchObject({ description: 'Commit staged work', agent: 'plan', subtask: true, template: 'Commit with message $ARGUMENTS', hints: ['$ARGUMENTS'] });
    expect(byName.review).toMatchObject({ description: 'Project review', template: 'Review $1 carefully.', hints: ['$1'] });

    const commands = keel.keel.app.get(CommandService);
    const instance = await keel.keel.app.get(InstanceService).get(repo);
    expect((await commands.get(instance, 'git/commit'))?.agent).toBe('plan');
    expect(await commands.get(instance, 'missing')).toBeUndefined();
  });

  it('answers 400 naming the markdown file of an invalid command', async () => {
    const dir = tempDir('keel-commands-bad-');
    mkdirSync(join(dir, '.opencode', 'command'), { recursive: true });
    const file = join(dir, '.opencode', 'command', 'bad.md');
    writeFileSync(file, '---\nsubtask: maybe\n---\nx\n');
    const response = await fetch(`${keel.url}/command?directory=${encodeURIComponent(dir)}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ name: 'ConfigInvalidError', data: { path: file, issues: [{ path: ['subtask'] }] } });
    rmSync(dir, { recursive: true, force: true });
  });
});
