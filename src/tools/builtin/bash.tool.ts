import { StringDecoder } from 'node:string_decoder';
import { ChildProcessByStdio, spawn } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { resolve } from 'node:path';
import { NUL_MESSAGE } from '../../common/text-input.guard';
import { sendSignal } from '../../pty/process-tree';
import { insideSessionDirectory, permitOutside } from '../confinement';
import { defineTool, ToolContext, ToolError } from '../tool';
import { splitCommands } from './shell-commands';

const BASH_DEFAULT_TIMEOUT_MS = 2 * 60 * 1000;
const BASH_MAX_TIMEOUT_MS = 10 * 60 * 1000;
/** Characters of output kept for the model; the rest is cut with a note. */
const BASH_MAX_OUTPUT = 30_000;

/**
 * Longest command bash can be given: Linux caps one exec argument at 128 KiB (MAX_ARG_STRLEN), and
 * the command travels as one (`bash -c`), after the `exec 2>&1` line.
 */
const SHELL_COMMAND_MAX_BYTES = 128 * 1024 - 64;

/** Why `command` cannot be handed to a process (a NUL ends a C string, the kernel caps the size), if it cannot. */
export function shellCommandProblem(command: string): string | undefined {
  if (command.includes('\0')) return NUL_MESSAGE;
  if (Buffer.byteLength(command) > SHELL_COMMAND_MAX_BYTES) return `must be at most ${SHELL_COMMAND_MAX_BYTES} bytes (the system's limit for one command)`;
  return undefined;
}

/** Commands whose path arguments are checked against the directory tree. */
const PATH_COMMANDS = new Set(['cd', 'rm', 'cp', 'mv', 'mkdir', 'touch', 'chmod', 'chown', 'cat', 'ln', 'rmdir']);

/** Programs whose second word is a sub-command worth approving on its own (`git push`, `npm run`). */
const SUBCOMMAND_PROGRAMS = new Set(['git', 'npm', 'npx', 'pnpm', 'yarn', 'bun', 'deno', 'cargo', 'go', 'docker', 'kubectl', 'pip', 'make', 'gh', 'dotnet', 'mvn', 'gradle']);

/** The pattern an "always" approval remembers for one sub-command: `git push *`, `ls *`. */
function approvalPattern(words: string[]): string {
  const sub = words[1];
  return SUBCOMMAND_PROGRAMS.has(words[0]) && sub && !sub.startsWith('-') ? `${words[0]} ${sub} *` : `${words[0]} *`;
}

async function authorize(command: string, cwd: string, ctx: ToolContext): Promise<void> {
  const commands = splitCommands(command);
  const outside = new Set<string>();
  for (const { words } of commands) {
    if (!PATH_COMMANDS.has(words[0])) continue;
    for (const arg of words.slice(1)) {
      if (arg.startsWith('-')) continue;
      const target = resolve(cwd, arg);
      if (!(await insideSessionDirectory(ctx, target))) outside.add(target);
    }
  }
  for (const dir of outside) await permitOutside(ctx, dir, { command });
  // As the reference: `cd` asks nothing of its own (where it leads is the external_directory check above;
  // what its argument substitutes, `cd "$(rm -rf x)"`, is a command of the line and asks).
  const asked = commands.filter(({ words }) => words[0] !== 'cd');
  if (asked.length === 0) return;
  await ctx.permit({
    type: 'bash',
    subjects: asked.map(({ words }) => words.join(' ')),
    patterns: asked.map(({ text }) => text),
    pattern: [...new Set(asked.map(({ words }) => approvalPattern(words)))],
    title: command,
    metadata: { command },
  });
}

interface ShellRun {
  output: string;
  exit: number | null;
  timedOut: boolean;
  aborted: boolean;
  truncated: boolean;
}

/**
 * Runs `command` with bash in its own process group, so a timeout or an abort kills the whole
 * tree. Output (stdout and stderr interleaved) is capped and reported as it arrives.
 */
export function runShell(
  command: string,
  options: { cwd: string; timeoutMs: number; signal: AbortSignal; maxOutput?: number; onOutput?: (output: string) => void },
): Promise<ShellRun> {
  const maxOutput = options.maxOutput ?? BASH_MAX_OUTPUT;
  return new Promise((done, fail) => {
    const problem = shellCommandProblem(command);
    if (problem) return fail(new ToolError(`command ${problem}`));
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      // `exec 2>&1` puts stderr on the stdout pipe, so the two keep the order the command wrote them in.
      child = spawn(process.env.SHELL?.endsWith('bash') ? process.env.SHELL : 'bash', ['-c', `exec 2>&1\n${command}`], {
        cwd: options.cwd,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TERM: 'dumb' },
      });
    } catch (error) {
      // e.g. E2BIG when the environment and the command together pass the system's limit.
      return fail(new ToolError(`Failed to start the shell: ${(error as Error).message}`));
    }
    let output = '';
    let truncated = false;
    let timedOut = false;
    let aborted = false;
    const kill = () => {
      if (child.pid === undefined || child.exitCode !== null || !sendSignal(-child.pid, 'SIGTERM')) return;
      setTimeout(() => sendSignal(-child.pid!, 'SIGKILL'), 2000).unref();
    };
    const onAbort = () => {
      aborted = true;
      kill();
    };
    if (options.signal.aborted) onAbort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const decoder = new StringDecoder('utf8'); // a chunk may end inside a UTF-8 character
    const append = (chunk: Buffer) => {
      if (truncated) return;
      output += decoder.write(chunk);
      if (output.length > maxOutput) {
        output = output.slice(0, maxOutput);
        truncated = true;
      }
      options.onOutput?.(output);
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    child.once('error', (error) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      fail(new ToolError(`Failed to start the shell: ${error.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      done({ output, exit: code, timedOut, aborted, truncated });
    });
  });
}

export const bashTool = defineTool({
  id: 'bash',
  description: [
    'Executes a bash command in the session directory (or `workdir`) with an optional timeout in milliseconds',
    `(default ${BASH_DEFAULT_TIMEOUT_MS}, at most ${BASH_MAX_TIMEOUT_MS}). stdout and stderr are returned together,`,
    `cut after ${BASH_MAX_OUTPUT} characters. Use the dedicated read/write/edit/glob/grep tools for files;`,
    'give a short `description` (5-10 words) of what the command does.',
  ].join(' '),
  parameters: (z) => z.object({
    command: z.string().describe('The command to execute'),
    timeout: z.number().int().positive().optional().describe('Optional timeout in milliseconds'),
    workdir: z.string().optional().describe('Directory to run the command in (default: the session directory)'),
    description: z.string().describe('Clear, concise description of what this command does in 5-10 words'),
  }),
  async execute(args, ctx) {
    const cwd = resolve(ctx.directory, args.workdir ?? '.');
    if (!(await insideSessionDirectory(ctx, cwd))) {
      await ctx.permit({ type: 'external_directory', subjects: [cwd], pattern: [cwd, `${cwd}/*`], title: `Run a command in ${cwd}` });
    }
    await authorize(args.command, cwd, ctx);
    // Run where the check looked: a link swapped after it is not followed again.
    const realCwd = await realpath(cwd).catch(() => cwd);
    const timeoutMs = Math.min(args.timeout ?? BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS);
    ctx.metadata({ title: args.description, metadata: { output: '', description: args.description } });
    const run = await runShell(args.command, {
      cwd: realCwd,
      timeoutMs,
      signal: ctx.abort,
      onOutput: (output) => ctx.metadata({ metadata: { output, description: args.description } }),
    });
    const notes: string[] = [];
    if (run.truncated) notes.push(`Output was cut after ${BASH_MAX_OUTPUT} characters.`);
    if (run.timedOut) notes.push(`Command terminated after exceeding the timeout of ${timeoutMs} ms.`);
    if (run.aborted) notes.push('Command aborted by the user.');
    const output = notes.length > 0 ? `${run.output}\n\n<bash_metadata>\n${notes.join('\n')}\n</bash_metadata>` : run.output;
    return { title: args.description, output, metadata: { output: run.output, exit: run.exit, description: args.description } };
  },
});
