// The funnel matcher of one person: their events in (ts, seq) order, each with the steps it matches, in one pass.
// For each step k it keeps the attempt that reached k with the latest start (ClickHouse's windowFunnel): a later
// start leaves the most room in the window for the next step, so the deepest step reached is exact. It works on the
// population's columns (row indexes into ts and mask) and reuses its buffers: a month holds hundreds of thousands of
// events, and an object per event or per attempt cost more than the matching.

export interface PersonMatch {
  /** How many steps the person reached in order within the window (0: never started). */
  depth: number;
  /** Row indexes of the events of the chosen attempt, one per step reached. */
  path: number[];
}

export class FunnelMatcher {
  /** Per step: whether an attempt reached it, its first step's ts, and its path (row indexes, `stepCount` slots). */
  private readonly reached: Uint8Array;
  private readonly startTs: Float64Array;
  private readonly paths: Int32Array;

  /**
   * @param ts each row's ts
   * @param mask each row's steps: bit k set when it matches step k (bit 0 only when it may also start the funnel)
   */
  constructor(
    private readonly ts: ArrayLike<number>,
    private readonly mask: ArrayLike<number>,
    private readonly stepCount: number,
    private readonly windowMs: number,
  ) {
    this.reached = new Uint8Array(stepCount);
    this.startTs = new Float64Array(stepCount);
    this.paths = new Int32Array(stepCount * stepCount);
  }

  /**
   * `rows[from..to)` in (ts, seq) order. An event is used for one step per attempt; a later step needs a later event,
   * and its ts at most windowMs after the attempt's first step. Of the attempts reaching the deepest step, the one
   * with the latest start is kept (with equal starts, the one that got there first).
   * @example new FunnelMatcher([0, 5], [1, 2], 2, 10).match([0, 1], 0, 2) // { depth: 2, path: [0, 1] }
   */
  match(rows: ArrayLike<number>, from: number, to: number): PersonMatch {
    const { reached, startTs, paths, stepCount, windowMs, ts, mask } = this;
    reached.fill(0);
    for (let position = from; position < to; position++) {
      const row = rows[position]!;
      const bits = mask[row]!;
      if (bits === 0) continue;
      const rowTs = ts[row]!;
      // Deepest first: this event extends attempts as they stood before it, so it fills one step per attempt.
      for (let step = stepCount - 1; step >= 1; step--) {
        if ((bits & (1 << step)) === 0 || !reached[step - 1]) continue;
        const start = startTs[step - 1]!;
        if (rowTs - start > windowMs) continue;
        if (reached[step] && start <= startTs[step]!) continue;
        reached[step] = 1;
        startTs[step] = start;
        paths.copyWithin(step * stepCount, (step - 1) * stepCount, (step - 1) * stepCount + step);
        paths[step * stepCount + step] = row;
      }
      if (bits & 1) {
        reached[0] = 1;
        startTs[0] = rowTs;
        paths[0] = row;
      }
    }
    for (let step = stepCount - 1; step >= 0; step--) {
      if (reached[step]) return { depth: step + 1, path: Array.from(paths.subarray(step * stepCount, step * stepCount + step + 1)) };
    }
    return { depth: 0, path: [] };
  }
}
