import type { FileHandle } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AllowedDirectories, OUTSIDE_ALLOWED } from '../common/allowed-directories';
import { ValidationError, issue } from '../common/errors';
import type { Part } from '../messages/message.entity';
import { listTool } from '../tools/builtin/list.tool';
import { isBinaryOpen, MAX_READ_BYTES, readOutput } from '../tools/builtin/read.tool';
import type { ToolContext } from '../tools/tool';

export type PartInput = { id?: string; type: string; [field: string]: unknown };

/** A part as expandUserParts adds it: the ids it shares with its message are filled in. */
type NewPart = Omit<Part, 'id' | 'sessionID' | 'messageID'> & { id?: string };

const MIME_BY_EXTENSION: Record<string, string> = {
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.pdf': 'application/pdf',
};

/** A context for reading files the user attached: they chose them, so nothing asks. */
function attachmentContext(directory: string, sessionID: string, messageID: string): ToolContext {
  return {
    sessionID, messageID, callID: '', agent: 'user', directory, worktree: directory, abort: new AbortController().signal,
    metadata: () => undefined, permit: () => Promise.resolve(), publish: () => undefined,
  };
}

/**
 * Attached files (`file:` urls) are read by the server, so they must really be (links followed) where
 * a request's directory could be: a 400 naming the part's `url` otherwise.
 */
export async function checkAttachments(inputs: PartInput[], allowed: AllowedDirectories): Promise<void> {
  for (const [index, input] of inputs.entries()) {
    if (input.type !== 'file' || typeof input.url !== 'string' || !input.url.startsWith('file:')) continue;
    let path: string;
    try {
      path = fileURLToPath(input.url);
    } catch {
      throw refuseAttachment(index, input.url, 'url is not a local file path');
    }
    if ((await allowed.realLocation(path)) === undefined) throw refuseAttachment(index, input.url, `the attached file is ${OUTSIDE_ALLOWED}`);
  }
}

function refuseAttachment(index: number, url: string, message: string): ValidationError {
  return new ValidationError([issue(['parts', index, 'url'], message)], { url });
}

/** The parts an attached file becomes: a directory's listing, a binary file as a data URL, a text file as the read tool reads it. */
async function addAttachment(
  input: PartInput,
  path: string,
  { handle, location }: { handle: FileHandle; location: string },
  add: (fields: NewPart) => void,
  ctx: ToolContext,
): Promise<void> {
  const info = await handle.stat();
  const note = (text: string) => add({ type: 'text', synthetic: true, text });
  if (info.isDirectory()) {
    const listed = await listTool.execute({ path: location }, ctx);
    note(`Called the list tool with the following input: ${JSON.stringify({ path })}`);
    note(listed.output);
    add({ ...input, mime: 'application/x-directory' });
  } else if (!info.isFile()) note(`The user attached ${path}, but it is not a regular file.`);
  else if (info.size > MAX_READ_BYTES) note(`The user attached ${path}, but it is too large to read (${info.size} bytes).`);
  else if (await isBinaryOpen(handle, path)) {
    const mime = typeof input.mime === 'string' && input.mime !== 'text/plain' ? input.mime : (MIME_BY_EXTENSION[extname(path).toLowerCase()] ?? 'application/octet-stream');
    const data = await handle.readFile();
    add({ ...input, mime, filename: input.filename ?? basename(path), url: `data:${mime};base64,${data.toString('base64')}` });
  } else {
    const read = readOutput((await handle.readFile()).toString('utf8'));
    note(`Called the Read tool with the following input: ${JSON.stringify({ filePath: path })}`);
    note(read.output);
    add({ ...input, mime: 'text/plain' });
  }
}

/**
 * The stored parts of a user message from the request's input parts (reference `createUserMessage`):
 * text files are read into synthetic text, directories listed, binary files sent as data URLs,
 * an agent mention adds a hint to call the task tool.
 */
export async function expandUserParts(
  inputs: PartInput[],
  ids: { sessionID: string; messageID: string; directory: string; newPartID: () => string; allowed: AllowedDirectories },
): Promise<Part[]> {
  const parts: Part[] = [];
  const add = (fields: NewPart) =>
    parts.push({ ...fields, id: fields.id ?? ids.newPartID(), sessionID: ids.sessionID, messageID: ids.messageID } as Part);
  const ctx = attachmentContext(ids.directory, ids.sessionID, ids.messageID);
  // checkAttachments ran where the request arrived (PromptLoop.admit, CommandRunner.run), before any answer.
  for (const input of inputs) {
    if (input.type === 'file' && typeof input.url === 'string' && input.url.startsWith('file:')) {
      const path = fileURLToPath(input.url);
      // What is read is what was opened, judged again on the open handle: a link swapped since
      // checkAttachments cannot hand over a file outside the allowed directories (the answer has begun
      // by now, so the message says so instead of a 400).
      const opened = await ids.allowed.open(path);
      if (opened === 'outside' || !opened) {
        add({ type: 'text', synthetic: true, text: `The user attached ${path}, but it ${opened ? `is ${OUTSIDE_ALLOWED}` : 'does not exist'}.` });
        continue;
      }
      try {
        await addAttachment(input, path, opened, add, ctx);
      } finally {
        await opened.handle.close();
      }
    } else if (input.type === 'file' && typeof input.url === 'string' && input.url.startsWith('data:text/plain')) {
      const text = Buffer.from(input.url.slice(input.url.indexOf(',') + 1), input.url.includes(';base64,') ? 'base64' : 'utf8').toString('utf8');
      add({ type: 'text', synthetic: true, text });
      add(input);
    } else if (input.type === 'agent') {
      add(input);
      add({ type: 'text', synthetic: true, text: `Use the above message and context to generate a prompt and call the task tool with subagent: ${String(input.name)}` });
    } else add(input);
  }
  return parts;
}
