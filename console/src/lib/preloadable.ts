import { createElement, lazy, type ComponentType } from 'react';

/** The console path the tab was opened at, without the /ui base: `/memory/documents`. */
const openedPath = window.location.pathname.slice(import.meta.env.BASE_URL.length - 1);

/** Whether the tab was opened at a console path `paths` matches. */
export function openedAt(paths: RegExp): boolean {
  return paths.test(openedPath);
}

/** The code of the pages the tab was opened at, being fetched (a page's module may add its own page). */
const opening: Promise<unknown>[] = [];

/**
 * Resolves once the code of the pages the tab was opened at is here (or failed to come), at the latest
 * after `atMostMs` (a stalled fetch then shows the page's loading placeholder instead of holding the
 * whole console). The console waits for it with its sign-in check, so the first page renders without
 * suspending: React holds back a page that appears after a loading placeholder for up to 300 ms.
 */
export async function openedPagesLoaded(atMostMs = 3000): Promise<void> {
  const loaded = (async () => {
    for (let seen = 0; seen < opening.length;) {
      const batch = opening.slice(seen);
      seen = opening.length;
      await Promise.allSettled(batch);
    }
  })();
  await Promise.race([loaded, new Promise((resolve) => setTimeout(resolve, atMostMs))]);
}

/**
 * A page whose code is a separate chunk, like React.lazy, but that can be fetched ahead (`preload()`)
 * and then renders at once. A React.lazy component suspends on its first render even when its chunk is
 * already here, and React 19 holds back content revealed after a Suspense fallback for up to 300 ms:
 * a preloaded page rendered through this never shows the fallback, so it is on screen in the same frame.
 *
 * `opensAt`: the console paths this page shows. When the tab is opened at one of them, its code is
 * fetched at once, beside the console's own and the sign-in check (see `openedPagesLoaded`).
 */
export function preloadable<P extends object>(
  load: () => Promise<{ default: ComponentType<P> }>,
  opensAt?: RegExp,
): ComponentType<P> & { preload: () => Promise<unknown> } {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<{ default: ComponentType<P> }> | undefined;
  const preload = () =>
    (loading ??= load().then((module) => {
      loaded = module.default;
      return module;
    }));
  if (opensAt && openedAt(opensAt)) opening.push(preload());
  const Lazy = lazy(preload);
  function Preloadable(props: P) {
    return loaded ? createElement(loaded, props) : createElement(Lazy as ComponentType<P>, props);
  }
  return Object.assign(Preloadable, { preload });
}

/** Runs `task` when the browser is idle (at the latest after `timeout` ms). */
export function whenIdle(task: () => void, timeout = 2000): void {
  if ('requestIdleCallback' in window) window.requestIdleCallback(task, { timeout });
  else setTimeout(task, 200);
}
