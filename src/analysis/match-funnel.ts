// The funnel matcher of one person: their events in (ts, seq) order, each with the steps it matches, in one pass.
// For each step k it keeps the attempt that reached k with the latest start (ClickHouse's windowFunnel): a later
// start leaves the most room in the window for the next step, so the deepest step reached is exact.

export interface MatchableEvent {
  ts: number;
  seq: number;
  /** Bit k set when the event matches step k (bit 0 only when it may also start the funnel). */
  mask: number;
}

export interface PersonMatch {
  /** How many steps the person reached in order within the window (0: never started). */
  depth: number;
  /** Indexes (into the person's sorted events) of the events of the chosen attempt, one per step reached. */
  path: number[];
}

interface Attempt {
  startTs: number;
  path: number[];
}

/**
 * `events` sorted by (ts, seq). An event is used for one step per attempt; a later step needs a later event in
 * (ts, seq) order, and its ts at most `windowMs` after the attempt's first step. Of the attempts reaching the
 * deepest step, the one with the latest start is kept (with equal starts, the one that got there first).
 * @example matchFunnel([{ ts: 0, seq: 1, mask: 1 }, { ts: 5, seq: 2, mask: 2 }], 2, 10) // { depth: 2, path: [0, 1] }
 */
export function matchFunnel(events: readonly MatchableEvent[], stepCount: number, windowMs: number): PersonMatch {
  const reached: (Attempt | undefined)[] = new Array(stepCount);
  for (let index = 0; index < events.length; index++) {
    const event = events[index]!;
    if (event.mask === 0) continue;
    // Deepest first: this event extends attempts as they stood before it, so it fills one step per attempt.
    for (let step = stepCount - 1; step >= 1; step--) {
      if ((event.mask & (1 << step)) === 0) continue;
      const before = reached[step - 1];
      if (!before || event.ts - before.startTs > windowMs) continue;
      const current = reached[step];
      if (!current || before.startTs > current.startTs) reached[step] = { startTs: before.startTs, path: [...before.path, index] };
    }
    if (event.mask & 1) reached[0] = { startTs: event.ts, path: [index] };
  }
  for (let step = stepCount - 1; step >= 0; step--) {
    const attempt = reached[step];
    if (attempt) return { depth: step + 1, path: attempt.path };
  }
  return { depth: 0, path: [] };
}
