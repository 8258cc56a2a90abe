import { RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { OPERATION_ID } from '../src/openapi/operation.decorator';
import { referenceOperations, referenceSuccessStatus } from '../src/openapi/reference-document';
import { ConfigHome, isolatedConfigHome } from './support/config-home';
import { setEnv } from './support/env';
import { startKeel, TestKeel } from './support/keel';

/** Session-surface handlers: operationId, HTTP method, @HttpCode and whether they write the response themselves (@Res). */
function sessionHandlers(keel: TestKeel) {
  const app = keel.keel.app;
  const scanner = app.get(MetadataScanner);
  const handlers: { operationId: string; method: RequestMethod; httpCode?: number; ownsResponse: boolean }[] = [];
  for (const wrapper of app.get(DiscoveryService).getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance) continue;
    const prototype = Object.getPrototypeOf(instance) as Record<string, () => unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name];
      const operationId = Reflect.getMetadata(OPERATION_ID, handler) as string | undefined;
      if (!operationId) continue;
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, instance.constructor, name) ?? {}) as Record<string, unknown>;
      handlers.push({
        operationId,
        method: Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod,
        httpCode: Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined,
        ownsResponse: Object.keys(args).some((key) => key.startsWith('1:')), // RouteParamtypes.RESPONSE
      });
    }
  }
  return handlers;
}

describe('success statuses of the session surface match the reference (issue 12)', () => {
  let keel: TestKeel;
  let home: ConfigHome;
  let restoreEnv: () => void;

  beforeAll(async () => {
    home = isolatedConfigHome({ repoPrefix: 'keel-codes-', project: { 'a.txt': 'alpha\n' } });
    restoreEnv = setEnv({ KEEL_SHARE_BASE_URL: 'https://share.example.test/' });
    keel = await startKeel();
  });

  afterAll(async () => {
    await keel.close();
    restoreEnv();
    home.restore();
  });

  it('every handler mapped to a reference operation declares the reference success status', () => {
    const handlers = sessionHandlers(keel).filter((h) => referenceOperations().has(h.operationId));
    expect(handlers.length).toBeGreaterThan(50);
    // Without @HttpCode, Nest answers 201 to a POST and 200 to anything else.
    const effective = (h: (typeof handlers)[number]) => h.httpCode ?? (h.method === RequestMethod.POST ? 201 : 200);
    const wrong = handlers
      .filter((h) => !h.ownsResponse && effective(h) !== referenceSuccessStatus(h.operationId))
      .map((h) => `${h.operationId}: ${effective(h)} instead of ${referenceSuccessStatus(h.operationId)}`);
    expect(wrong).toEqual([]);
  });

  it('answers the reference success status to a valid request of each operation driven live', async () => {
    const directory = encodeURIComponent(home.repo);
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
      const url = `${keel.url}${path}${path.includes('?') ? '&' : '?'}directory=${directory}`;
      const controller = new AbortController();
      const response = await fetch(url, {
        method,
        signal: controller.signal,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      // Event streams never end: the status line is what is compared.
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
        controller.abort();
        return { status: response.status, json: undefined };
      }
      const text = await response.text();
      return { status: response.status, json: text ? JSON.parse(text) : undefined };
    };
    const seen: string[] = [];
    const mismatches: string[] = [];
    const drive = async (operationId: string, method: string, path: string, body?: unknown) => {
      const result = await call(method, path, body);
      seen.push(operationId);
      if (result.status !== referenceSuccessStatus(operationId)) mismatches.push(`${operationId}: ${result.status} instead of ${referenceSuccessStatus(operationId)} (${JSON.stringify(result.json)})`);
      return result.json;
    };

    for (const [operationId, path] of [
      ['global.health', '/global/health'],
      ['global.event', '/global/event'],
      ['event.subscribe', '/event'],
      ['project.list', '/project'],
      ['path.get', '/path'],
      ['vcs.get', '/vcs'],
      ['config.get', '/config'],
      ['command.list', '/command'],
      ['app.agents', '/agent'],
      ['provider.list', '/provider'],
      ['config.providers', '/config/providers'],
      ['provider.auth', '/provider/auth'],
      ['tool.ids', '/experimental/tool/ids'],
      ['session.list', '/session'],
      ['session.status', '/session/status'],
      ['permission.list', '/permission'],
      ['lsp.status', '/lsp'],
      ['formatter.status', '/formatter'],
      ['mcp.status', '/mcp'],
      ['find.text', '/find?pattern=alpha'],
      ['find.files', '/find/file?query=a'],
      ['find.symbols', '/find/symbol?query=a'],
      ['file.list', '/file?path=.'],
      ['file.read', '/file/content?path=a.txt'],
      ['file.status', '/file/status'],
      ['pty.list', '/pty'],
      // Routes of newer clients (opencode 1.18.33's document).
      ['vcs.status', '/vcs/status'],
      ['vcs.diff', '/vcs/diff?mode=git&context=12'],
      ['app.skills', '/skill'],
      ['experimental.capabilities.get', '/experimental/capabilities'],
      ['experimental.console.get', '/experimental/console'],
      ['experimental.resource.list', '/experimental/resource'],
      ['experimental.workspace.list', '/experimental/workspace'],
      ['experimental.workspace.status', '/experimental/workspace/status'],
      ['v2.location.get', '/api/location'],
      ['v2.agent.list', '/api/agent'],
      ['v2.integration.list', '/api/integration'],
      ['v2.model.list', '/api/model'],
      ['v2.provider.list', '/api/provider'],
      ['v2.reference.list', '/api/reference'],
      ['v2.command.list', '/api/command'],
      ['v2.skill.list', '/api/skill'],
      ['v2.fs.find', '/api/fs/find?query=a&limit=20'],
    ]) {
      await drive(operationId, 'GET', path);
    }
    const project = await drive('project.current', 'GET', '/project/current');
    await drive('project.update', 'PATCH', `/project/${project.id}`, { name: 'codes' });
    await drive('project.directories', 'GET', `/project/${project.id}/directories`);
    await drive('v2.projectCopy.refresh', 'POST', `/experimental/project/${project.id}/copy/refresh`);
    await drive('config.update', 'PATCH', '/config', {});
    await drive('auth.set', 'PUT', '/auth/openai', { type: 'api', key: 'sk-test' });
    await drive('app.log', 'POST', '/log', { service: 'test', level: 'info', message: 'hello' });

    const session = await drive('session.create', 'POST', '/session', {});
    const s = `/session/${session.id}`;
    await drive('session.get', 'GET', s);
    await drive('session.update', 'PATCH', s, { title: 'renamed' });
    await drive('session.children', 'GET', `${s}/children`);
    await drive('session.todo', 'GET', `${s}/todo`);
    await drive('session.diff', 'GET', `${s}/diff`);
    await drive('session.messages', 'GET', `${s}/message`);
    await drive('session.abort', 'POST', `${s}/abort`);
    await drive('session.share', 'POST', `${s}/share`);
    await drive('session.unshare', 'DELETE', `${s}/share`);
    const shell = await drive('session.shell', 'POST', `${s}/shell`, { agent: 'build', command: 'echo hi' });
    await drive('session.message', 'GET', `${s}/message/${shell.info.id}`);
    await drive('session.revert', 'POST', `${s}/revert`, { messageID: shell.info.id });
    await drive('session.unrevert', 'POST', `${s}/unrevert`);
    await drive('session.fork', 'POST', `${s}/fork`, {});
    // No provider is configured: the turn ends at once with an error on the assistant message.
    await drive('session.prompt', 'POST', `${s}/message`, { parts: [{ type: 'text', text: 'hi' }] });
    await drive('session.prompt_async', 'POST', `${s}/prompt_async`, { parts: [{ type: 'text', text: 'hi' }] });

    const pty = await drive('pty.create', 'POST', '/pty', { command: 'sh' });
    await drive('pty.get', 'GET', `/pty/${pty.id}`);
    await drive('pty.update', 'PUT', `/pty/${pty.id}`, { size: { rows: 30, cols: 100 } });
    await drive('pty.remove', 'DELETE', `/pty/${pty.id}`);

    await drive('instance.dispose', 'POST', '/instance/dispose');
    await drive('global.dispose', 'POST', '/global/dispose');
    await drive('session.delete', 'DELETE', s);

    expect(mismatches).toEqual([]);
    // Handlers that write their response themselves (@Res) escape the metadata check: each is driven here.
    const selfWritten = sessionHandlers(keel).filter((h) => h.ownsResponse && referenceOperations().has(h.operationId));
    expect(selfWritten.map((h) => h.operationId).filter((id) => !seen.includes(id))).toEqual([]);
  });
});
