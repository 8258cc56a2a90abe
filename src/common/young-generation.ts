import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Starting the server allocates much that survives (modules, Nest and TypeORM metadata), so V8 grows
 * the young generation for it, from 1 MB per semi-space up to 16, and keeps those 32 MB committed
 * long after the start is over: a fifth of the idle process. Imported first by main.ts, this holds the
 * young generation at its initial size while the server starts and settles (`settleAfterStart()`).
 * bench/start-rss.mjs measures it (docs/performance.md).
 */
setFlagsFromString('--semi-space-growth-factor=1');

/**
 * Half a second after the server listens (the start's deferred work done: the first Traefik generation
 * recorded, the watchers' first ticks), what the start left behind is collected: about a third of the
 * old space (module wrappers, Nest's scanning, the migrations check), which V8 would otherwise keep until
 * load brought the next major collections. It takes three, a fifth of a second apart (each compacts
 * what the one before freed, and each is a pause of a few tens of milliseconds on a quiet machine);
 * then V8's default growth of the young generation again (2, its `--semi-space-growth-factor`
 * default), so under load it grows as it always did. bench/start-rss.mjs measures it: idle RSS
 * 120 → 113 MB.
 */
export function settleAfterStart(): void {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  const collections = [500, 700, 900];
  collections.forEach((delay, i) =>
    setTimeout(() => {
      collect();
      if (i === collections.length - 1) setFlagsFromString('--semi-space-growth-factor=2');
    }, delay).unref(),
  );
}
