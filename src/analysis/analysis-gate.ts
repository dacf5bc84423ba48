// For tests only: a gate that holds every analysis job on the analysis thread, before it computes, until the test
// releases it. A test proves with it, without timing, that the HTTP thread answers while a job runs there, and fills
// the queue to its edge, and makes the thread die under a held job (as out of memory would) to prove it restarts.
// Passed through createApp({ analysis: { gate } }); never set in production.
import type { MessagePort } from 'node:worker_threads';

export interface AnalysisGate {
  /** [0]: 0 closed, 1 released, 2 the thread holding a job exits. Shared with the analysis thread. */
  readonly buffer: SharedArrayBuffer;
  /** Resolves once `count` jobs in all have reached the gate (they hold there until release). */
  reached(count: number): Promise<void>;
  /** Opens the gate for good: held jobs compute, later ones pass straight through. */
  release(): void;
  /** The thread holding a job exits (code 1) instead of computing it; the gate closes again for later jobs. */
  exitHeld(): void;
  /** The runner calls it when the thread reports a job at the gate. */
  arrive(): void;
}

/** @example const gate = createAnalysisGate(); … await gate.reached(1); … gate.release(); */
export function createAnalysisGate(): AnalysisGate {
  const buffer = new SharedArrayBuffer(4);
  const state = new Int32Array(buffer);
  let arrivals = 0;
  const waiters: { count: number; resolve(): void }[] = [];
  return {
    buffer,
    reached: (count) =>
      new Promise<void>((resolve) => {
        if (arrivals >= count) resolve();
        else waiters.push({ count, resolve });
      }),
    release: () => {
      Atomics.store(state, 0, 1);
      Atomics.notify(state, 0);
    },
    exitHeld: () => {
      Atomics.store(state, 0, 2);
      Atomics.notify(state, 0);
    },
    arrive: () => {
      arrivals++;
      for (const waiter of waiters.filter((candidate) => candidate.count <= arrivals)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
  };
}

/**
 * On the analysis thread: says a job arrived (the message reaches the HTTP thread while this thread blocks), then
 * blocks until the gate is released, or ends the thread when told to.
 * @example if (data.gate) holdAtGate(data.gate, parentPort!);
 */
export function holdAtGate(buffer: SharedArrayBuffer, port: Pick<MessagePort, 'postMessage'>): void {
  const state = new Int32Array(buffer);
  port.postMessage('held');
  while (Atomics.load(state, 0) === 0) Atomics.wait(state, 0, 0);
  if (Atomics.compareExchange(state, 0, 2, 0) === 2) process.exit(1);
}

