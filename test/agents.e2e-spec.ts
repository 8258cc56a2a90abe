import { createOpencodeClient } from '@opencode-ai/sdk/v2';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentService } from '../src/agents/agent.service';
import { InstanceService } from '../src/projects/instance.service';
import { expectReferenceSchema } from './support/reference-schema';
import { ConfigHome, isolatedConfigHome } from './support/config-home';
import { startKeel, tempDir, TestKeel } from './support/keel';

describe('agents: built-ins, config entries and markdown agents', () => {
  let keel: TestKeel;
  let home: ConfigHome;
  let repo: string;

  beforeAll(async () => {
    home = isolatedConfigHome({
      repoPrefix: 'keel-agents-',
      global: { 'agent/helper.md': '---\ndescription: Global helper\nmode: subagent\n---\nHelp with anything.\n' },
      project: {
        'opencode.json': JSON.stringify({
          default_agent: 'plan',
          permission: { bash: 'ask' },
          tools: { webfetch: false },
          agent: {
            build: { temperature: 0.3, model: 'anthropic/claude-sonnet-4-5' },
            reviewer: { description: 'Reviews code', mode: 'subagent', prompt: 'Review it.', tools: { write: false }, permission: { edit: 'deny' }, custom_flag: true },
            explore: { disable: true },
          },
        }),
        '.opencode/agent/docs/writer.md':
          '---\ndescription: Writes documentation\nmode: primary\ntemperature: 0.7\nmodel: openai/gpt-5\ntools:\n  bash: false\n---\n\nYou write docs.\n',
      },
    });
    repo = home.repo;
    keel = await startKeel();
  });

  afterAll(async () => {
    await keel.close();
    home.restore();
  });

  it('lists the built-in agents with reference fields in a directory without config', async () => {
    const dir = tempDir('keel-agents-plain-');
    const { data, response } = await createOpencodeClient({ baseUrl: keel.url, directory: dir }).app.agents();
    expect(response.status).toBe(200);
    for (const agent of data!) expectReferenceSchema(agent, 'Agent');
    const byName = Object.fromEntries(data!.map((a) => [a.name, a]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(['build', 'plan', 'general', 'explore', 'compaction', 'title', 'summary', 'helper']));
    expect(byName.build).toMatchObject({ mode: 'primary', native: true, default: true, permission: { edit: 'allow', bash: { '*': 'allow' }, doom_loop: 'ask', external_directory: 'ask' } });
    expect(byName.plan).toMatchObject({ mode: 'primary', permission: { edit: 'deny', bash: { '*': 'ask', 'git diff*': 'allow' } } });
    expect(byName.general).toMatchObject({ mode: 'subagent', hidden: true });
    expect(byName.title).toMatchObject({ hidden: true, temperature: 0.5, prompt: expect.any(String) });
    expect(byName.helper).toMatchObject({ mode: 'subagent', description: 'Global helper', prompt: 'Help with anything.', native: false });
    rmSync(dir, { recursive: true, force: true });
  });

  it('merges config agents, markdown agents, permissions, tools and default_agent', async () => {
    const { data } = await createOpencodeClient({ baseUrl: keel.url, directory: repo }).app.agents();
    for (const agent of data!) expectReferenceSchema(agent, 'Agent');
    const byName = Object.fromEntries(data!.map((a) => [a.name, a]));
    expect(byName.explore).toBeUndefined();
    expect(byName.build).toMatchObject({
      temperature: 0.3,
      model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' },
      permission: { bash: { '*': 'ask' } },
      tools: { webfetch: false },
    });
    expect(byName.build.default).toBeUndefined();
    expect(byName.plan.default).toBe(true);
    expect(byName.reviewer).toMatchObject({
      mode: 'subagent',
      description: 'Reviews code',
      prompt: 'Review it.',
      tools: { write: false, webfetch: false },
      permission: { edit: 'deny', bash: { '*': 'ask' } },
      options: { custom_flag: true },
    });
    expect(byName['docs/writer']).toMatchObject({
      mode: 'primary',
      temperature: 0.7,
      model: { providerID: 'openai', modelID: 'gpt-5' },
      prompt: 'You write docs.',
      tools: { bash: false },
    });

    const agents = keel.keel.app.get(AgentService);
    const instance = await keel.keel.app.get(InstanceService).get(repo);
    expect((await agents.get(instance, 'docs/writer'))?.description).toBe('Writes documentation');
    expect(await agents.get(instance, 'missing')).toBeUndefined();
    expect((await agents.defaultAgent(instance)).name).toBe('plan');
  });

  it('answers 400 naming the markdown file and key of an invalid agent', async () => {
    const dir = tempDir('keel-agents-bad-');
    mkdirSync(join(dir, '.opencode', 'agent'), { recursive: true });
    const file = join(dir, '.opencode', 'agent', 'odd.md');
    writeFileSync(file, '---\nmode: sideways\n---\nHi\n');
    const response = await fetch(`${keel.url}/agent?directory=${encodeURIComponent(dir)}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ name: 'ConfigInvalidError', data: { path: file, issues: [{ path: ['mode'] }] } });
    rmSync(dir, { recursive: true, force: true });
  });
});
