import { open, readdir, readFile, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { confinedPath, displayPath } from '../confinement';
import { defineTool, ToolError } from '../tool';

const READ_DEFAULT_LIMIT = 2000;
const MAX_LINE_LENGTH = 2000;
export const MAX_READ_BYTES = 50 * 1024 * 1024;
const BINARY_EXTENSIONS = new Set([
  '.zip', '.tar', '.gz', '.tgz', '.bz2', '.xz', '.7z', '.exe', '.dll', '.so', '.dylib', '.class', '.jar', '.war',
  '.o', '.a', '.lib', '.obj', '.bin', '.dat', '.wasm', '.pyc', '.pyo', '.png', '.jpg', '.jpeg', '.gif', '.bmp',
  '.ico', '.webp', '.pdf', '.doc', '.docx', '.xls', '.xlsx', '.ppt', '.pptx', '.odt', '.ods', '.sqlite', '.db',
  '.mp3', '.mp4', '.avi', '.mov', '.wav', '.flac', '.ogg', '.woff', '.woff2', '.ttf', '.otf', '.eot',
]);

/** A NUL byte, or more than 30% control bytes, in the first 4 KiB marks a file as binary. */
export function looksBinary(sample: Buffer): boolean {
  if (sample.length === 0) return false;
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 9 || (byte > 13 && byte < 32)) control++;
  }
  return control / sample.length > 0.3;
}

export async function isBinaryFile(path: string): Promise<boolean> {
  if (BINARY_EXTENSIONS.has(extname(path).toLowerCase())) return true;
  const handle = await open(path, 'r');
  try {
    return await isBinaryOpen(handle, path);
  } finally {
    await handle.close();
  }
}

/** isBinaryFile for a file already open (`name` gives its extension): its first 4 KiB are looked at. */
export async function isBinaryOpen(handle: FileHandle, name: string): Promise<boolean> {
  if (BINARY_EXTENSIONS.has(extname(name).toLowerCase())) return true;
  const sample = Buffer.alloc(4096);
  const { bytesRead } = await handle.read(sample, 0, sample.length, 0);
  return looksBinary(sample.subarray(0, bytesRead));
}

/** `00001| text` lines from `offset` (0-based), `limit` of them, long lines cut. */
function numberLines(text: string, offset: number, limit: number): { body: string; total: number; shown: number } {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const slice = lines.slice(offset, offset + limit);
  const body = slice
    .map((line, i) => `${String(offset + i + 1).padStart(5, '0')}| ${line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH)}...` : line}`)
    .join('\n');
  return { body, total: lines.length, shown: slice.length };
}

async function suggestions(path: string): Promise<string[]> {
  try {
    const name = basename(path).toLowerCase();
    const entries = await readdir(dirname(path));
    return entries.filter((e) => e.toLowerCase().includes(name) || name.includes(e.toLowerCase())).slice(0, 3).map((e) => join(dirname(path), e));
  } catch {
    return [];
  }
}

export const readTool = defineTool({
  id: 'read',
  description: [
    'Reads a file from the local filesystem. `filePath` is absolute or relative to the session directory.',
    `By default it returns up to ${READ_DEFAULT_LIMIT} lines from the start; \`offset\` (0-based line) and \`limit\` read further.`,
    'Lines are returned as `00001| text`; lines longer than 2000 characters are cut. Binary files are refused.',
  ].join(' '),
  parameters: (z) => z.object({
    filePath: z.string().describe('The path to the file to read'),
    offset: z.coerce.number().int().min(0).optional().describe('The line number to start reading from (0-based)'),
    limit: z.coerce.number().int().positive().optional().describe(`The number of lines to read (defaults to ${READ_DEFAULT_LIMIT})`),
  }),
  async execute(args, ctx) {
    const path = await confinedPath(ctx, args.filePath);
    const title = displayPath(ctx, path);
    const info = await stat(path).catch(() => undefined);
    if (!info) {
      const similar = await suggestions(path);
      throw new ToolError(similar.length > 0 ? `File not found: ${path}\n\nDid you mean one of these?\n${similar.join('\n')}` : `File not found: ${path}`);
    }
    if (info.isDirectory()) throw new ToolError(`${path} is a directory; use the list tool to see its entries`);
    if (info.size > MAX_READ_BYTES) throw new ToolError(`File is too large to read (${info.size} bytes): ${path}`);
    if (await isBinaryFile(path)) throw new ToolError(`Cannot read binary file: ${path}`);
    const text = await readFile(path, 'utf8');
    return { title, ...readOutput(text, args.offset ?? 0, args.limit ?? READ_DEFAULT_LIMIT) };
  },
});

/** What the read tool answers for a file's text: its numbered lines from `offset`, and a preview. */
export function readOutput(text: string, offset = 0, limit = READ_DEFAULT_LIMIT): { output: string; metadata: { preview: string } } {
  const { body, total, shown } = numberLines(text, offset, limit);
  let output = `<file>\n${body}\n`;
  output += offset + shown < total ? `\n(File has more lines. Use 'offset' parameter to read beyond line ${offset + shown})\n` : `\n(End of file - total ${total} lines)\n`;
  output += '</file>';
  return { output, metadata: { preview: text.split('\n').slice(0, 20).join('\n') } };
}
