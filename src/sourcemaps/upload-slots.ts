// Uploads take their turn: one map is read, checked and compressed at a time (a 25 MB map holds some 200 MB while
// it is: the body, its base64 string, the bytes, their text and the parsed map), a few wait their turn, and past
// them the answer is 503 overloaded with Retry-After.
import { overloaded } from '../ingest/write-queue.ts';

export interface UploadSlots {
  /** Waits for the turn; call the returned function when done, whatever happened. 503 when too many wait. */
  take(): Promise<() => void>;
}

/**
 * @example const slots = createUploadSlots(1, 16); const done = await slots.take(); try { … } finally { done(); }
 */
export function createUploadSlots(active: number, waiting: number): UploadSlots {
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else running--;
  };
  return {
    take: () => {
      if (running < active) {
        running++;
        return Promise.resolve(release);
      }
      if (queue.length >= waiting) return Promise.reject(overloaded('Too many source map uploads at once; retry shortly'));
      return new Promise((resolve) => queue.push(() => resolve(release)));
    },
  };
}
