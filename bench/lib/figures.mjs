// Small helpers every bench uses to take and print its figures.
import { readFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';

/** `--name <number>` from argv, else `fallback`. */
export function numberOption(argv, name, fallback) {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
}

/** The p-th percentile (0–100) of an ascending array, nearest rank; NaN when empty. */
export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/** Resident set size of a process in MB, from /proc. */
export function rssMb(pid) {
  const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** CPU time (user + system) a process has used so far, in ms; NaN once it is gone. */
export function cpuMs(pid) {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in clock ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop().split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** One line naming the machine and its current load, printed beside every figure. */
export function machineLine() {
  const gib = (bytes) => (bytes / 2 ** 30).toFixed(1);
  return (
    `${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${gib(totalmem())} GiB RAM (${gib(freemem())} free), ` +
    `node ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`
  );
}
