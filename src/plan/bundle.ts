// The shape of a tracking plan bundle (CONTRACT section 3), checked with valibot before any schema is compiled.
import * as v from 'valibot';
import type { ErrorDetail } from '../http/errors.ts';
import { toErrorDetails } from '../http/validate.ts';
import { eventTypePattern } from '../event-store/wire-event.ts';

/** A JSON Schema 2020-12 document: an object of keywords, or `true` / `false`. */
export type JsonSchema = boolean | { [keyword: string]: unknown };

export interface TrackingPlanBundle {
  plan: string;
  version: string;
  description?: string | undefined;
  /** One schema per event type; the key `*` is the wildcard for types the plan does not declare. */
  events: Record<string, JsonSchema>;
}

/** The wildcard event: validates every type the plan does not declare. */
export const wildcardEventType = '*';

/** Semantic Versioning 2.0.0, the regular expression semver.org recommends. */
export const semverPattern =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

const EventTypeKey = v.pipe(
  v.string(),
  v.check((key) => key === wildcardEventType || eventTypePattern.test(key), 'must be "*" or match ^[A-Za-z][A-Za-z0-9_.:-]{0,63}$'),
);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const Schema = v.union(
  [v.boolean(), v.custom<{ [keyword: string]: unknown }>(isPlainObject)],
  'must be a JSON Schema (an object or a boolean)',
);

const BundleSchema = v.object(
  {
    plan: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(128, 'must be at most 128 characters')),
    version: v.pipe(v.string('must be a string'), v.regex(semverPattern, 'must be a semantic version such as 1.4.0')),
    description: v.optional(v.string('must be a string')),
    // record() alone would take an array (its indexes as keys).
    events: v.pipe(v.custom<object>(isPlainObject, 'must be an object of event schemas'), v.record(EventTypeKey, Schema)),
  },
  // valibot reports a missing key with the object's message, at the key's path.
  (issue) => (issue.path && issue.path.length > 0 ? 'is required' : 'must be an object with plan, version and events'),
);

const knownKeys = new Set(['plan', 'version', 'description', 'events']);

export type BundleStructureResult = { ok: true; bundle: TrackingPlanBundle } | { ok: false; problems: ErrorDetail[] };

/**
 * Checks a parsed bundle's structure (not its schemas); problems are JSON Pointers into the bundle.
 * Unknown top-level keys are refused: a newer bundle feature must not be silently ignored by an older parser.
 * @example const result = checkBundleStructure(JSON.parse(text));
 */
export function checkBundleStructure(value: unknown): BundleStructureResult {
  // valibot's object() takes an array for an object; a bundle never is one.
  if (!isPlainObject(value)) return { ok: false, problems: [{ path: '', message: 'must be an object with plan, version and events' }] };
  const result = v.safeParse(BundleSchema, value);
  const problems = result.success ? [] : toErrorDetails(result.issues);
  for (const key of Object.keys(value)) {
    if (!knownKeys.has(key)) problems.push({ path: `/${escapePointerToken(key)}`, message: 'unknown key (allowed: plan, version, description, events)' });
  }
  if (!result.success || problems.length > 0) return { ok: false, problems };
  return { ok: true, bundle: result.output };
}

/** RFC 6901 escaping of one reference token. */
export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}
