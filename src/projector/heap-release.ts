// Gives the projector thread's garbage back to the system between batches. Its live heap is about 6 MiB, but V8
// collects the old generation only once it has grown by a fixed step (8 MiB) plus the young generation's size past
// what survived the last collection, so at 2,000 events/s the thread held 35-46 MiB of heap, mostly garbage. A full
// collection after a batch, at most once a second, keeps it at 23-29 MiB (docs/ingest.md, "Memory"). After a batch
// its events and derived rows are garbage too, so the collection costs what the live 6 MiB cost, also during a
// catch-up. `gc` exists only when node runs with --expose-gc (bin/sightline, npm start, the single executable);
// without it this does nothing.

/** How often at most: a collection of the projector's heap takes a few ms; once a second is under 1% of a core. */
export const heapReleaseIntervalMs = 1000;

export interface HeapReleaseOptions {
  /** A full collection (default: the `gc` that --expose-gc installs, if any). */
  collect?: () => void;
  now?: () => number;
  intervalMs?: number;
}

/**
 * The function to call after each batch: collects when `intervalMs` have passed since the last collection.
 * @example const releaseGarbage = createHeapRelease(); … releaseGarbage();
 */
export function createHeapRelease(options: HeapReleaseOptions = {}): () => void {
  const collect = options.collect ?? exposedGc();
  if (!collect) return () => undefined;
  const now = options.now ?? (() => performance.now());
  const intervalMs = options.intervalMs ?? heapReleaseIntervalMs;
  let last = now();
  return () => {
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
