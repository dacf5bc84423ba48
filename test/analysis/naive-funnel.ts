// The naive funnel for the differential test: straight from the raw events as generated, by exhaustive search of
// every attempt of every person (no single-pass shortcut), so it shares no logic with src/analysis/.

export interface NaiveEvent {
  /** Position in ingest order (ties at one millisecond follow it). */
  order: number;
  site: number;
  anon: string;
  user: string | null;
  ts: number;
  type: string;
  path: string;
  device: 'desktop' | 'mobile';
  internal: boolean;
}

export interface NaiveStep {
  type: string;
  /** Exact, or a prefix when it ends in *. */
  path?: string;
}

export interface NaiveFunnelQuery {
  /** A site index, or null for all sites. */
  site: number | null;
  fromMs: number;
  /** Exclusive end of the range (the day after `to`). */
  toEndMs: number;
  steps: NaiveStep[];
  windowMs: number;
  dateMode: 'first_step' | 'all_steps';
  withInternal: boolean;
  device?: 'desktop' | 'mobile';
}

function matches(step: NaiveStep, event: NaiveEvent): boolean {
  if (event.type !== step.type) return false;
  if (step.path === undefined) return true;
  return step.path.endsWith('*') ? event.path.startsWith(step.path.slice(0, -1)) : event.path === step.path;
}

/** People reaching each step. */
export function naiveFunnel(events: readonly NaiveEvent[], query: NaiveFunnelQuery): number[] {
  const inScope = events.filter((event) => query.site === null || event.site === query.site);
  // A person: the anon_id's user (the smallest user_id any event of the scope bound it to), else the anon_id.
  const userOf = new Map<string, string>();
  for (const event of inScope) {
    if (event.user === null) continue;
    const current = userOf.get(event.anon);
    if (current === undefined || event.user < current) userOf.set(event.anon, event.user);
  }
  const endMs = query.dateMode === 'first_step' ? query.toEndMs + query.windowMs : query.toEndMs;
  const byPerson = new Map<string, NaiveEvent[]>();
  for (const event of inScope) {
    if (event.internal && !query.withInternal) continue;
    if (event.ts < query.fromMs || event.ts >= endMs) continue;
    const person = userOf.has(event.anon) ? `u:${userOf.get(event.anon)}` : `a:${event.anon}`;
    byPerson.set(person, [...(byPerson.get(person) ?? []), event]);
  }
  const counts = query.steps.map(() => 0);
  for (const personEvents of byPerson.values()) {
    const sorted = [...personEvents].sort((a, b) => a.ts - b.ts || a.order - b.order);
    // Deepest step reachable after position `from` at step `step`, from an attempt started at `startTs`.
    const deepest = (from: number, step: number, startTs: number): number => {
      if (step === query.steps.length) return step;
      let best = step;
      for (let index = from + 1; index < sorted.length; index++) {
        const event = sorted[index]!;
        if (event.ts - startTs > query.windowMs) break;
        if (matches(query.steps[step]!, event)) best = Math.max(best, deepest(index, step + 1, startTs));
      }
      return best;
    };
    let depth = 0;
    sorted.forEach((event, index) => {
      if (!matches(query.steps[0]!, event) || event.ts >= query.toEndMs) return;
      if (query.device !== undefined && event.device !== query.device) return;
      depth = Math.max(depth, deepest(index, 1, event.ts));
    });
    for (let step = 0; step < depth; step++) counts[step]!++;
  }
  return counts;
}
