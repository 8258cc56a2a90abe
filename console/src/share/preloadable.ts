import { createElement, lazy, type ComponentType } from 'react';

/**
 * A page whose code is a separate chunk, like React.lazy, but that can be fetched ahead (`preload()`)
 * and then renders at once. A React.lazy component suspends on its first render even when its chunk is
 * already here, and React 19 holds back content revealed after a Suspense fallback for up to 300 ms:
 * a preloaded page rendered through this never shows the fallback, so it is on screen in the same frame.
 */
export function preloadable<P extends object>(
  load: () => Promise<{ default: ComponentType<P> }>,
): ComponentType<P> & { preload: () => Promise<unknown> } {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<{ default: ComponentType<P> }> | undefined;
  const preload = () =>
    (loading ??= load().then((module) => {
      loaded = module.default;
      return module;
    }));
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
