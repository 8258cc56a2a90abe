import { ToolError } from '../tool';

/**
 * Substitutions nested deeper than this refuse the command. Each level rescans its rest of the line:
 * without a bound, 20,000 nested `$(` took 1.7 s of the event loop and then overflowed the stack.
 */
const MAX_NESTING = 32;

/** A command a shell line runs: its words (quotes removed) and its text as written. */
export interface ShellCommand {
  words: string[];
  text: string;
}

/** Words that open, continue or close a compound command: the command follows them (`then rm x`). */
const LEADING_WORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'esac', '{', '}', '!', 'time', 'exec', 'command', 'builtin', 'nohup']);
/** Words that start a line naming no command of its own (`for f in *.txt`, `case $x in`, `function f`). */
const HEADER_WORDS = new Set(['for', 'select', 'case', 'function']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Index of the `)` closing the `(` at `open`, quotes and nesting respected (the line's end when none does). */
function closingParen(line: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return line.length;
}

/** Index of the backquote closing the one at `open` (the line's end when none does). */
function closingBackquote(line: string, open: number): number {
  for (let i = open + 1; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === '`') return i;
  }
  return line.length;
}

/**
 * The commands a shell line runs, as the permission rules judge them: split on `;`, `&&`, `||`, `|`,
 * `&`, newlines and parentheses, quotes respected. The commands inside `$(…)`, backquotes, `<(…)` and
 * `>(…)` follow the one holding them (`echo $(rm -rf x)` also runs `rm -rf x`), in the reference's
 * order. Reserved words before a command are not part of it, and neither are variable assignments of
 * its words (its text keeps them, as the reference's does), so `then rm x` and `FOO=1 rm x` meet an
 * `rm *` rule; a loop's or a case's own line is no command.
 */
export function splitCommands(line: string, depth = 0): ShellCommand[] {
  if (depth > MAX_NESTING) throw new ToolError(`The command nests substitutions more than ${MAX_NESTING} deep; split it into simpler commands.`);
  const commands: ShellCommand[] = [];
  /** The commands substituted in the command being read. */
  let substituted: ShellCommand[] = [];
  let words: { word: string; at: number }[] = [];
  let word = '';
  let wordAt = -1;
  let quote: '"' | "'" | null = null;
  const add = (text: string, at: number) => {
    if (wordAt < 0) wordAt = at;
    word += text;
  };
  const endWord = () => {
    if (word) words.push({ word, at: wordAt });
    word = '';
    wordAt = -1;
  };
  const endCommand = (end: number) => {
    endWord();
    let first = 0;
    while (first < words.length && LEADING_WORDS.has(words[first].word)) first++;
    let name = first;
    while (name < words.length && ASSIGNMENT.test(words[name].word)) name++;
    if (name < words.length && !HEADER_WORDS.has(words[name].word)) {
      commands.push({ words: words.slice(name).map((w) => w.word), text: line.slice(words[first].at, end).trim() });
    }
    commands.push(...substituted);
    words = [];
    substituted = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else add(c, i);
      continue;
    }
    const opensSubstitution = line[i + 1] === '(' && (c === '$' || (!quote && (c === '<' || c === '>')));
    if (opensSubstitution || c === '`') {
      const end = c === '`' ? closingBackquote(line, i) : closingParen(line, i + 1);
      // `$((…))` is arithmetic, not a command.
      if (c === '`' || line[i + 2] !== '(') substituted.push(...splitCommands(line.slice(i + (c === '`' ? 1 : 2), end), depth + 1));
      add(line.slice(i, end + 1), i);
      i = end;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length) add(line[++i], i - 1);
      else add(c, i);
    } else if (c === '"' || c === "'") {
      quote = c;
      if (wordAt < 0) wordAt = i;
    } else if (c === '\\' && i + 1 < line.length) add(line[++i], i - 1);
    else if (c === ' ' || c === '\t') endWord();
    else if (c === '&' && (line[i - 1] === '>' || line[i + 1] === '>')) add(c, i);
    else if (c === ';' || c === '\n' || c === '|' || c === '&' || c === '(' || c === ')') {
      endCommand(i);
      if ((c === '|' || c === '&' || c === ';') && line[i + 1] === c) i++;
    } else add(c, i);
  }
  endCommand(line.length);
  return commands;
}
