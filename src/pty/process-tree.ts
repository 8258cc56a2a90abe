import { existsSync, readdirSync, readFileSync } from 'node:fs';

interface ProcessInfo {
  pid: number;
  ppid: number;
  session: number;
}

/** `/proc/<pid>/stat` fields 4 (ppid) and 6 (session); the command name may contain spaces and parens. */
function readStat(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(fields[1]), session: Number(fields[3]) };
  } catch {
    return undefined;
  }
}

function listProcesses(): ProcessInfo[] {
  const infos: ProcessInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = readStat(Number(name));
    if (info) infos.push(info);
  }
  return infos;
}

/**
 * The terminal's process and everything it started: every process of its session (the PTY leader
 * is a session leader, and an interactive shell puts each job in its own process group), plus the
 * descendants of those that left the session with setsid.
 */
function processTree(root: number): number[] {
  const processes = listProcesses();
  const members = new Set<number>([root]);
  for (const p of processes) if (p.session === root) members.add(p.pid);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of processes) {
      if (!members.has(p.pid) && members.has(p.ppid)) {
        members.add(p.pid);
        grew = true;
      }
    }
  }
  return [...members].filter((pid) => pid === root || processes.some((p) => p.pid === pid));
}

/** Sends `name` to `pid` (a negative pid: its process group); false when there is no such process. */
export function sendSignal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGKILL the terminal's whole process tree, synchronously (it also runs from a process `exit`
 * handler). Repeats while something is found, since a process may fork between scan and kill.
 * Without /proc (not Linux), falls back to the process group.
 */
export function killProcessTree(root: number): void {
  if (!existsSync('/proc/self')) {
    if (!sendSignal(-root, 'SIGKILL')) sendSignal(root, 'SIGKILL');
    return;
  }
  for (let round = 0; round < 5; round++) {
    const alive = processTree(root).filter((pid) => sendSignal(pid, 'SIGKILL'));
    if (alive.length === 0) return;
  }
}
