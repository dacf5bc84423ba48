// The event wire format (CONTRACT section 2): one event object, validated with valibot at the boundary. Ingest checks
// every event it receives with it; the tracking plan's offline check (src/plan/check-events.ts) judges recorded events
// as ingest would, and the plan's event types follow its pattern. The stored row keeps the wire text (raw).
import * as v from 'valibot';
import type { ErrorDetail } from '../http/errors.ts';
import { parseIsoTimestamp, toErrorDetails, toJsonPointer } from '../http/validate.ts';
import { isCurrencyCode, toMinorUnits } from '../money/minor-units.ts';

export const maxFutureMs = 10 * 60 * 1000;
export const maxAgeMs = 400 * 24 * 60 * 60 * 1000;
export const maxUrlLength = 2048;
/**
 * How deep a field's value may nest objects and arrays. Deeper values are refused: serialising them again (props
 * into their column, raw payloads in DLQ and export answers) would exhaust the stack, a 500 instead of a 400.
 */
export const maxNestingDepth = 64;

const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const eventTypePattern = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  return URL.canParse(text);
}

const HttpUrl = v.pipe(
  v.string('must be a string or null'),
  v.maxLength(maxUrlLength, `must be at most ${maxUrlLength} characters`),
  v.check(isHttpUrl, 'must be an absolute http(s) URL'),
);

const Revenue = v.pipe(
  v.object({
    amount: v.union([v.string(), v.number()], 'must be a decimal string or a number'),
    currency: v.pipe(v.string('must be a string'), v.check(isCurrencyCode, 'must be an ISO-4217 currency code')),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    // An unknown currency has its own issue; its amount cannot be judged (how many decimals?), so it gets none.
    if (!dataset.typed || !isCurrencyCode(dataset.value.currency)) return;
    const { amount, currency } = dataset.value;
    const minor = toMinorUnits(amount, currency);
    if (minor === undefined || minor < 0) {
      addIssue({ message: `must be a non-negative amount with at most the decimals of ${currency}`, path: [{ type: 'object', origin: 'value', input: dataset.value, key: 'amount', value: amount }] });
    }
  }),
);

const Screen = v.object({
  w: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100_000)),
  h: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100_000)),
});

const Context = v.object({
  user_agent: v.optional(v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'))),
  ip: v.optional(v.pipe(v.string(), v.ip('must be an IP address'))),
  locale: v.optional(v.pipe(v.string(), v.maxLength(64))),
  title: v.optional(v.pipe(v.string(), v.maxLength(1024))),
  screen: v.optional(Screen),
});

export const WireEventSchema = v.object(
  {
    id: v.pipe(v.string('must be a string'), v.regex(uuidPattern, 'must be a UUID')),
    site_id: v.pipe(v.string('must be a string'), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a site id')),
    anon_id: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(128, 'must be at most 128 characters')),
    ts: v.pipe(v.string('must be a string'), v.check(isIsoTimestamp, 'must be an ISO-8601 timestamp with an offset')),
    url: v.optional(v.nullable(HttpUrl)),
    type: v.pipe(v.string('must be a string'), v.regex(eventTypePattern, 'must match ^[A-Za-z][A-Za-z0-9_.:-]{0,63}$')),
    referrer: v.optional(v.nullable(v.pipe(v.string('must be a string or null'), v.maxLength(maxUrlLength), v.check((text) => URL.canParse(text), 'must be a URL')))),
    user_id: v.optional(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(128, 'must be at most 128 characters'))),
    props: v.optional(
      v.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'must be an object'),
    ),
    revenue: v.optional(Revenue),
    consent: v.optional(v.object({ analytics: v.boolean('must be a boolean'), marketing: v.optional(v.boolean('must be a boolean')) })),
    context: v.optional(Context),
    internal: v.optional(v.boolean('must be a boolean')),
  },
  'must be an event object',
);

export type WireEvent = v.InferOutput<typeof WireEventSchema>;

/** Remembers the last parse so the schema's check and the caller parse each timestamp once. */
let lastParsed: { text: string; milliseconds: number | undefined } = { text: '', milliseconds: undefined };
function parseTimestampOnce(text: string): number | undefined {
  if (lastParsed.text !== text) lastParsed = { text, milliseconds: parseIsoTimestamp(text) };
  return lastParsed.milliseconds;
}
function isIsoTimestamp(text: string): boolean {
  return parseTimestampOnce(text) !== undefined;
}

export interface ParsedWireEvent {
  event: WireEvent;
  tsMs: number;
  /** The id in canonical lower case: (site_id, id) is the dedup key whatever case the client used. */
  canonicalId: string;
  revenueMinor: number | null;
}

export type WireResult = { ok: true; value: ParsedWireEvent } | { ok: false; details: ErrorDetail[] };

/** Whether `value` nests objects or arrays more than `limit` levels deep; it never descends further than that. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit === 0) return true;
  return (Array.isArray(value) ? value : Object.values(value)).some((child) => nestsDeeperThan(child, limit - 1));
}

function tooDeepFields(value: unknown, pointerPrefix: string): ErrorDetail[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value)
    .filter(([, field]) => nestsDeeperThan(field, maxNestingDepth))
    .map(([key]) => ({ path: pointerPrefix + toJsonPointer([{ key }]), message: `must nest at most ${maxNestingDepth} levels deep` }));
}

/**
 * Validates one event at the wire boundary; `pointerPrefix` is "/3" for the fourth element of an array body.
 * Time bounds are relative to `nowMs` (at most 10 minutes ahead, at most 400 days old).
 */
export function parseWireEvent(value: unknown, nowMs: number, pointerPrefix = ''): WireResult {
  const tooDeep = tooDeepFields(value, pointerPrefix);
  if (tooDeep.length > 0) return { ok: false, details: tooDeep };
  const result = v.safeParse(WireEventSchema, value);
  if (!result.success) return { ok: false, details: toErrorDetails(result.issues, pointerPrefix) };
  const event = result.output;
  const details: ErrorDetail[] = [];
  const tsMs = parseTimestampOnce(event.ts)!;
  if (tsMs > nowMs + maxFutureMs) details.push({ path: `${pointerPrefix}/ts`, message: 'must be at most 10 minutes in the future' });
  if (tsMs < nowMs - maxAgeMs) details.push({ path: `${pointerPrefix}/ts`, message: 'must be at most 400 days old' });
  if (event.type === 'pageview' && !event.url) details.push({ path: `${pointerPrefix}/url`, message: 'is required for a pageview' });
  if (details.length > 0) return { ok: false, details };
  const revenueMinor = event.revenue ? toMinorUnits(event.revenue.amount, event.revenue.currency)! : null;
  return { ok: true, value: { event, tsMs, canonicalId: event.id.toLowerCase(), revenueMinor } };
}
