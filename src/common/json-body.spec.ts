import { once } from 'node:events';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import express, { json } from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { jsonBodies, MAX_JSON_DEPTH, nestsDeeperThan, refuseDeepJson } from './json-body';

describe('nestsDeeperThan', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');

  it('counts arrays and objects together', () => {
    expect(nestsDeeperThan(bytes('{"a":[{"b":[1]}]}'), 4)).toBe(false);
    expect(nestsDeeperThan(bytes('{"a":[{"b":[1]}]}'), 3)).toBe(true);
    expect(nestsDeeperThan(bytes('[[1],[2],[3]]'), 2)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes and backslashes included', () => {
    expect(nestsDeeperThan(bytes('["[[[[", "\\"[[[[", "\\\\", {"k[[[":1}]'), 2)).toBe(false);
    expect(nestsDeeperThan(bytes('["\\\\", [[1]]]'), 2)).toBe(true);
  });

  it('is not fooled by multi-byte UTF-8 characters, and reads decoded text the same way', () => {
    const text = '{"é✓😀":["[", {"x": ["日本"]}]}';
    expect(nestsDeeperThan(bytes(text), 4)).toBe(false);
    expect(nestsDeeperThan(bytes(text), 3)).toBe(true);
    expect(nestsDeeperThan(text, 4)).toBe(false);
    expect(nestsDeeperThan(text, 3)).toBe(true);
  });
});

describe('refuseDeepJson', () => {
  const verified = (text: string, encoding: string | null = 'utf-8') => {
    const req = {} as Request;
    refuseDeepJson(
      req,
      undefined,
      encoding === 'utf-16le' ? Buffer.from(text, 'utf16le') : Buffer.from(text),
      encoding,
    );
    return req.nulFreeJson;
  };

  it('marks a body whose text holds no NUL escape, so the NUL guard need not walk it', () => {
    expect(verified(JSON.stringify({ a: ['b', { c: 'd' }] }))).toBe(true);
    expect(verified(JSON.stringify({ a: 'x\u0000y' }))).toBe(false);
    expect(verified(JSON.stringify({ ['k\u0000']: 1 }))).toBe(false);
    expect(verified(JSON.stringify({ a: 'x\u0000y' }), 'utf-16le')).toBe(false);
    expect(verified(JSON.stringify({ a: 'plain' }), 'utf-16le')).toBe(true);
  });
});

describe('jsonBodies', () => {
  /** A server whose one route answers what the parser made of the body: the value, or what is read of its error. */
  async function serve(parser: RequestHandler): Promise<{ url: string; close: () => Promise<void> }> {
    const app = express();
    // As in Keel, an earlier middleware may wait (a credential lookup): by then a small body has arrived.
    app.use((_req, _res, next) => setImmediate(next));
    app.use(parser);
    app.post('/', (req, res) => {
      res.json({ body: req.body as unknown });
    });
    // What Nest's error mapping and Keel's filter read of a parser error.
    app.use(
      (
        error: Error & { status?: number; statusCode?: number; type?: string },
        _req: Request,
        res: Response,
        _next: NextFunction,
      ) => {
        const { status, statusCode, type, message } = error;
        res
          .status(status ?? 500)
          .json({
            error: {
              status,
              statusCode,
              type,
              message,
              syntax: error instanceof SyntaxError,
              name: error.constructor.name,
            },
          });
      },
    );
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const close = () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    return { url: `http://127.0.0.1:${port}/`, close };
  }

  const cases: { name: string; body: string | Buffer; headers?: Record<string, string> }[] = [
    { name: 'an object', body: '{"a":[1,"é😀"]}' },
    { name: 'an array after whitespace', body: ' \n[1, 2]' },
    { name: 'an empty body', body: '' },
    { name: 'a leading BOM', body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]) },
    { name: 'a string at the top', body: '"text"' },
    { name: 'a number at the top', body: '42' },
    { name: 'whitespace only', body: '   ' },
    { name: 'a line separator at the top', body: '\u2028{}' },
    { name: 'a string after whitespace', body: ' \n "x"' },
    { name: 'null', body: 'null' },
    { name: 'trailing text', body: '{"a":1} x' },
    { name: 'a lone surrogate escape', body: '{"a":"\\ud800"}' },
    { name: 'malformed JSON', body: '{"a":' },
    { name: 'too deep a body', body: '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1) },
    { name: 'invalid UTF-8', body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]) },
    {
      name: 'upper-case type with a charset',
      body: '{"a":1}',
      headers: { 'content-type': 'Application/JSON; charset=UTF-8' },
    },
    {
      name: 'a latin-1 charset (body-parser)',
      body: '{"a":"x"}',
      headers: { 'content-type': 'application/json; charset=latin1' },
    },
    { name: 'a body past the direct read (body-parser)', body: JSON.stringify({ a: 'x'.repeat(70_000) }) },
  ];

  it('reads a plain JSON body itself, and leaves every other form to body-parser', async () => {
    const delegated: string[] = [];
    const general = json({ limit: '50mb', verify: refuseDeepJson });
    const server = await serve(
      jsonBodies('50mb', (req, res, next) => {
        delegated.push(String(req.headers['x-case']));
        general(req, res, next);
      }),
    );
    try {
      const send = (name: string, type: string, body: string) =>
        fetch(server.url, { method: 'POST', headers: { 'content-type': type, 'x-case': name }, body }).then(
          (r) => r.json(),
        );
      expect(await send('plain', 'application/json', '{"a":1}')).toEqual({ body: { a: 1 } });
      expect(await send('utf-8', 'application/json; charset=utf-8', '[1]')).toEqual({ body: [1] });
      expect(await send('latin1', 'application/json; charset=latin1', '{"a":1}')).toMatchObject({
        error: { status: 415, type: 'charset.unsupported' },
      });
      expect(
        await send('large', 'application/json', JSON.stringify({ a: 'x'.repeat(70_000) })),
      ).toHaveProperty('body.a');
      // Headers and body in one packet: the request is complete before any middleware runs.
      const oneWrite = await new Promise<string>((resolve) => {
        const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
        socket.on('end', () => resolve(answer));
        socket.end(
          'POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nX-Case: one-write\r\nContent-Length: 7\r\n\r\n{"b":2}',
        );
      });
      expect(oneWrite).toContain('{"body":{"b":2}}');
      expect(delegated).toEqual(['latin1', 'large']);
    } finally {
      await server.close();
    }
  });

  it.each(cases)('answers $name exactly as body-parser does', async ({ body, headers }) => {
    const direct = await serve(jsonBodies('50mb'));
    const general = await serve(json({ limit: '50mb', verify: refuseDeepJson }));
    try {
      const send = async (url: string) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: typeof body === 'string' ? body : new Uint8Array(body),
        });
        return { status: response.status, body: await response.text() };
      };
      expect(await send(direct.url)).toEqual(await send(general.url));
    } finally {
      await Promise.all([direct.close(), general.close()]);
    }
  });
});
