/**
 * A pause for long synchronous work on the extension host's one thread: undefined while the
 * current stretch is shorter than `ms` (no promise per step), else a promise resolved once the
 * event loop has turned (timers, a cancel, a view's request run in between).
 */
export function timeSlicer(ms = 8): () => Promise<void> | undefined {
  let start = performance.now();
  return () => {
    if (performance.now() - start < ms) return undefined;
    return new Promise<void>(resolve =>
      setImmediate(() => {
        start = performance.now();
        resolve();
      }),
    );
  };
}
