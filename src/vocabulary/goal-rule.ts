// What a goal asks of an event (CONTRACT section 10): the words the goals domain stores, the report filter
// `goal=<id>` carries and the read model matches. A pageview goal names a path; an event goal names an event type,
// optionally a path; either may list props that must all hold exactly.

export interface GoalRule {
  kind: 'pageview' | 'event';
  /** Exact, or ending in `*`: `/x/*` matches `/x/` and every path below it, never `/x` itself. */
  path?: string;
  /** The event type of an event goal. */
  eventType?: string;
  /** Every key must be present in the event's props with exactly this value (compared as text). */
  props?: Readonly<Record<string, string>>;
}

/** A goal as a filter: its id (what the meta shows) and its rule (what the read model matches). */
export interface GoalFilter {
  id: string;
  rule: GoalRule;
}

/** Whether `path` satisfies a goal's path pattern. */
export function goalPathMatches(pattern: string, path: string | null): boolean {
  if (path === null) return false;
  if (pattern.endsWith('*')) return path.startsWith(pattern.slice(0, -1));
  return path === pattern;
}

/** A prop's value as text, the way a goal compares it: strings as they are, numbers and booleans as JSON prints them. */
function propText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return undefined;
}

/** The type of event a goal counts: pageviews for a pageview goal, its event type otherwise. */
export function goalEventType(rule: GoalRule): string {
  return rule.kind === 'pageview' ? 'pageview' : rule.eventType!;
}

/** Whether the goal tests props (which only an event's raw JSON holds: its readers parse them only then). */
export function goalHasProps(rule: GoalRule): boolean {
  return rule.props !== undefined && Object.keys(rule.props).length > 0;
}

/** Whether one event converts on the goal. `props` is the event's props object (or anything else when it has none). */
export function eventMatchesGoal(rule: GoalRule, event: { type: string; path: string | null; props: unknown }): boolean {
  if (event.type !== goalEventType(rule)) return false;
  if (rule.path !== undefined && !goalPathMatches(rule.path, event.path)) return false;
  if (rule.props) {
    const props = event.props !== null && typeof event.props === 'object' && !Array.isArray(event.props) ? (event.props as Record<string, unknown>) : {};
    for (const [key, wanted] of Object.entries(rule.props)) {
      if (!Object.hasOwn(props, key) || propText(props[key]) !== wanted) return false;
    }
  }
  return true;
}
