// Gives the projector thread's garbage back to the system between batches. Its live heap is about 6 MiB, but V8
// collects the old generation only once it has grown by a fixed step (8 MiB) plus the young generation's size past
// what survived the last collection, so at 2,000 events/s the thread held 35-46 MiB of heap, mostly garbage. A full
// collection after a batch that found the projector caught up, at most once a second, keeps it at 23-29 MiB
// (docs/ingest.md, "Memory"). Not during a catch-up: with a collection after every batch, the catch-up on spread
// history did 3,842 events per CPU-second of the thread against 5,384 without (one run each on a loaded machine,
// not conclusive, but the catch-up must not slow down). `gc` exists only when node runs with --expose-gc
// (bin/sightline, npm start, the single executable); without it this does nothing.

/** How often at most: a collection of the projector's heap took 15-22 ms of CPU (loaded machine), 2% of a core. */
export const heapReleaseIntervalMs = 1000;

export interface HeapReleaseOptions {
  /** A full collection (default: the `gc` that --expose-gc installs, if any). */
  collect?: () => void;
  now?: () => number;
  intervalMs?: number;
}

/**
 * The function to call after each batch, told whether the batch found the projector caught up (it was not full):
 * collects when it did and `intervalMs` have passed since the last collection.
 * @example const releaseGarbage = createHeapRelease(); … releaseGarbage(events < maxEventsPerBatch);
 */
export function createHeapRelease(options: HeapReleaseOptions = {}): (caughtUp: boolean) => void {
  const collect = options.collect ?? exposedGc();
  if (!collect) return () => undefined;
  const now = options.now ?? (() => performance.now());
  const intervalMs = options.intervalMs ?? heapReleaseIntervalMs;
  let last = now();
  return (caughtUp) => {
    if (!caughtUp) return;
    const time = now();
    if (time - last < intervalMs) return;
    last = time;
    collect();
  };
}

/** globalThis.gc when the process runs with --expose-gc, else undefined. */
export function exposedGc(): (() => void) | undefined {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? () => (gc as () => void)() : undefined;
}
