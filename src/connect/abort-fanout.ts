/**
 * One "abort" listener per caller signal, however many requests share it: a cluster read sends 1 + 2 per worker
 * requests with one signal, and more than 10 listeners on it is Node's MaxListenersExceededWarning. Returns a
 * subscribe function; what it returns unsubscribes (the last one removes the listener).
 */
export function createAbortFanout(): (signal: AbortSignal, fn: () => void) => () => void {
  const subscribers = new WeakMap<AbortSignal, { fns: Set<() => void>; listener: () => void }>();
  return (signal, fn) => {
    let entry = subscribers.get(signal);
    if (!entry) {
      const fns = new Set<() => void>();
      const created = {
        fns,
        listener: () => {
          for (const f of [...fns]) f();
        },
      };
      signal.addEventListener("abort", created.listener, { once: true });
      subscribers.set(signal, created);
      entry = created;
    }
    const current = entry;
    current.fns.add(fn);
    return () => {
      current.fns.delete(fn);
      if (current.fns.size === 0) {
        signal.removeEventListener("abort", current.listener);
        subscribers.delete(signal);
      }
    };
  };
}
