import type { Request } from 'express';
import { nestsDeeperThan, refuseDeepJson } from './json-body';

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
    refuseDeepJson(req, undefined, encoding === 'utf-16le' ? Buffer.from(text, 'utf16le') : Buffer.from(text), encoding);
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
