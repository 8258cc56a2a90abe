import type { AssistantMessage, MessageWithParts } from '../messages/message.entity';
import { estimateTokens, filterCompacted, isOverflow } from './compaction.service';

const tokens = (input: number, output: number, cacheRead = 0): AssistantMessage['tokens'] => ({ input, output, reasoning: 0, cache: { read: cacheRead, write: 0 } });

function user(id: string, compaction = false): MessageWithParts {
  return {
    info: { id, sessionID: 'ses_1', role: 'user', time: { created: 1 }, agent: 'build', model: { providerID: 'p', modelID: 'm' } },
    parts: compaction ? [{ id: `prt_${id}`, sessionID: 'ses_1', messageID: id, type: 'compaction', auto: false }] : [],
  };
}

function assistant(id: string, parentID: string, fields: Partial<AssistantMessage> = {}): MessageWithParts {
  return {
    info: {
      id,
      sessionID: 'ses_1',
      role: 'assistant',
      time: { created: 1 },
      parentID,
      modelID: 'm',
      providerID: 'p',
      mode: 'build',
      agent: 'build',
      path: { cwd: '/', root: '/' },
      cost: 0,
      tokens: tokens(0, 0),
      ...fields,
    },
    parts: [],
  };
}

describe('compaction rules', () => {
  it('overflows when input + cache reads + output exceed the context minus min(output limit, 32k)', () => {
    expect(isOverflow(tokens(1400, 100), { context: 2000, output: 500 })).toBe(false);
    expect(isOverflow(tokens(1400, 101), { context: 2000, output: 500 })).toBe(true);
    expect(isOverflow(tokens(1000, 0, 401), { context: 2000, output: 600 })).toBe(true);
    // The reserve is capped at 32k, and an unknown output limit reserves the cap.
    expect(isOverflow(tokens(167_000, 0), { context: 200_000, output: 64_000 })).toBe(false);
    expect(isOverflow(tokens(168_001, 0), { context: 200_000, output: 0 })).toBe(true);
    // An unknown context never overflows.
    expect(isOverflow(tokens(10_000_000, 0), { context: 0, output: 0 })).toBe(false);
  });

  it('keeps the history from the last compaction whose summary finished', () => {
    const history = [
      user('msg_1'),
      assistant('msg_2', 'msg_1', { finish: 'stop' }),
      user('msg_3', true),
      assistant('msg_4', 'msg_3', { summary: true, finish: 'stop' }),
      user('msg_5'),
      assistant('msg_6', 'msg_5', { finish: 'stop' }),
      user('msg_7', true),
      // A summary still streaming (no finish) does not cut the history yet, nor one that failed.
      assistant('msg_8', 'msg_7', { summary: true }),
      user('msg_9', true),
      assistant('msg_10', 'msg_9', { summary: true, finish: 'stop', error: { name: 'MessageAbortedError', data: { message: 'aborted' } } }),
    ];
    expect(filterCompacted(history).map((m) => m.info.id)).toEqual(['msg_3', 'msg_4', 'msg_5', 'msg_6', 'msg_7', 'msg_8', 'msg_9', 'msg_10']);
    expect(filterCompacted(history.slice(0, 3)).map((m) => m.info.id)).toEqual(['msg_1', 'msg_2', 'msg_3']);
  });

  it('estimates four characters a token', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('x'.repeat(400))).toBe(100);
  });
});
