// Hostile parameters on every spend, ROI and attribution route over real HTTP: query values (from/to and
// compare_from/compare_to as dates and timestamps, model, source, campaign, conversion_id, limit, cursors), JSON
// bodies of POST and PATCH (date, source, medium, campaign, amount, currency, site_id, spend ids), CSV imports, the
// workspace slug and the credential. Whatever arrives: never a 5xx, every refusal in the flat envelope (CONTRACT 8)
// with a code the route documents, a request built only of valid values succeeds, and a refused write changes no
// spend row. An independent oracle (below) says which values are valid.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, startTestServer, testAdminToken, type TestServer } from '../_setup.ts';
import { createKey, manualClock } from '../admin/_helpers.ts';
import { send } from '../events/_helpers.ts';
import { purchase, utm, visit } from '../attribution/_fixtures.ts';
import { csvHeader } from './_helpers.ts';
import { naughtyStrings as shortNaughtyStrings, overlongStrings } from '../_naughty-strings.ts';

const naughtyStrings = [...shortNaughtyStrings, ...overlongStrings];

const slug = 'fuzz';
const siteId = 'fuzz-shop';
const dayMs = 86_400_000;
const runs = 300;

// ── The oracle's verdicts: valid (must succeed), invalid (must be refused) or unknown (either, never a 5xx) ─────

type Verdict = boolean | undefined;
const all = (...verdicts: Verdict[]): Verdict => (verdicts.includes(false) ? false : verdicts.includes(undefined) ? undefined : true);

interface Value {
  /** The text sent: in a query string already encoded; in JSON the JSON text; in CSV the field's text. */
  text: string;
  valid: Verdict;
}

const naughtyString = fc.oneof(fc.constantFrom(...naughtyStrings), fc.string({ unit: 'binary', maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 12 }));

/** A query value as a client encodes it (lone surrogates cannot be percent-encoded: they become U+FFFD, as a browser sends them). */
const encode = (text: string) => encodeURIComponent(text.toWellFormed());
/** Query text sent verbatim: bad percent escapes, escapes of bytes that are not UTF-8, separators. */
const rawQueryTokens = ['%', '%%', '%zz', '%E', '%ED%A0%80', '%C0%AF', '%FF%FE', '%00', '+', '%2B', '%26', '%3D', 'a%00b', '%E2%80%AE', '%20', '%F0%9F%98', '%5B%5D'];

/** A hostile query value: verdict unknown (some of them happen to be valid for some parameter). */
const hostileQueryValue: fc.Arbitrary<Value> = fc.oneof(
  naughtyString.map((text) => ({ text: encode(text), valid: undefined })),
  fc.constantFrom(...rawQueryTokens).map((text) => ({ text, valid: undefined })),
);

// Days: an inclusive range of YYYY-MM-DD is valid when from ≤ to and it spans at most 366 days.
const firstDay = Date.UTC(2025, 0, 1) / dayMs;
const dayText = (day: number) => new Date(day * dayMs).toISOString().slice(0, 10);
const invalidDays = ['2026-02-30', '2025-02-29', '2026-13-01', '2026-00-10', '2026-06-00', '2026-6-1', '20260601', '+002026-06-01', '0000-01-01', ' 2026-06-01', '2026-06-01 ', '2026-06-01T00:00:00Z', '2026-W23', 'today', ''];
/** A day that is not one: refused wherever a day is expected. */
const invalidDay = fc.constantFrom(...invalidDays);

interface Bound {
  text: string;
  /** Epoch ms of the instant it names (for `to`, a date's last millisecond); undefined when it is no valid bound. */
  startMs?: number;
  endMs?: number;
}

const validDayBound = fc.integer({ min: 0, max: 800 }).map((offset): Bound => {
  const day = firstDay + offset;
  return { text: dayText(day), startMs: day * dayMs, endMs: (day + 1) * dayMs - 1 };
});
const offsets = ['Z', '+00:00', '+14:00', '-12:00', '+05:30', '-03:45'];
const offsetMinutes = (offset: string) => (offset === 'Z' ? 0 : (offset[0] === '-' ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6))));
/** A timestamp with an offset (attribution only): the instant is its local time minus its offset. */
const validTimestampBound = fc
  .record({ offset: fc.integer({ min: 0, max: 800 }), minute: fc.integer({ min: 0, max: 1439 }), zone: fc.constantFrom(...offsets), millis: fc.constantFrom('', '.000', '.999', '.5') })
  .map(({ offset, minute, zone, millis }): Bound => {
    const day = firstDay + offset;
    const local = `${dayText(day)}T${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:00${millis}`;
    const ms = Date.parse(`${local}Z`) - offsetMinutes(zone) * 60_000;
    return { text: `${local}${zone}`, startMs: ms, endMs: ms };
  });
const invalidTimestamps = ['2026-06-01T00:00:00', '2026-06-01T24:00:00Z', '2026-06-01T00:60:00Z', '2026-06-01T00:00:61Z', '2026-02-30T00:00:00Z', '2026-06-01T00:00:00+2:00', '2026-06-01 00:00:00Z', '2026-06-01T00:00:00.1234567891Z', '275760-09-13T00:00:00Z'];

type Part = { pairs: [string, string][]; valid: Verdict };
/** A parameter's generators: `any` mixes valid, invalid and hostile values; `clean` gives only valid ones. */
interface Param {
  any: fc.Arbitrary<Part>;
  clean: fc.Arbitrary<Part>;
}

const boundAfter = (from: Bound, span: number): Bound => {
  const day = from.startMs! / dayMs + span;
  return { text: dayText(day), startMs: day * dayMs, endMs: (day + 1) * dayMs - 1 };
};

/** Two bounds named `fromName` and `toName`; valid when both are and they make a range of at most 366 days. */
function rangeOf(fromName: string, toName: string, options: { timestamps: boolean }): Param {
  const valid = options.timestamps ? fc.oneof(validDayBound, validTimestampBound) : validDayBound;
  const invalid = fc.constantFrom(...invalidDays, ...(options.timestamps ? invalidTimestamps : [])).map((text): Bound => ({ text }));
  const bound = fc.oneof({ arbitrary: valid, weight: 8 }, { arbitrary: invalid, weight: 1 });
  // Near pairs: from a valid start, 0 to 370 days on (the 366-day edge included), sometimes backwards.
  const nearTo = fc.tuple(validDayBound, fc.oneof(fc.integer({ min: -2, max: 370 }), fc.constantFrom(364, 365, 366))).map(([from, span]): [Bound, Bound] => [from, boundAfter(from, span)]);
  type Slot = { kind: 'bound'; bound: Bound } | { kind: 'absent' } | { kind: 'hostile'; value: Value } | { kind: 'twice'; bound: Bound };
  const slot = (bound: Bound): fc.Arbitrary<Slot> =>
    fc.oneof(
      { arbitrary: fc.constant<Slot>({ kind: 'bound', bound }), weight: 12 },
      { arbitrary: fc.constant<Slot>({ kind: 'absent' }), weight: 1 },
      { arbitrary: hostileQueryValue.map((value): Slot => ({ kind: 'hostile', value })), weight: 1 },
      { arbitrary: fc.constant<Slot>({ kind: 'twice', bound }), weight: 1 },
    );
  const toPart = ([from, to]: [Slot, Slot]): Part => {
    const pairs: [string, string][] = [];
    const emit = (name: string, slot: Slot) => {
      if (slot.kind === 'bound') pairs.push([name, encode(slot.bound.text)]);
      if (slot.kind === 'hostile') pairs.push([name, slot.value.text]);
      if (slot.kind === 'twice') pairs.push([name, encode(slot.bound.text)], [name, encode(slot.bound.text)]);
    };
    emit(fromName, from);
    emit(toName, to);
    let valid: Verdict;
    if (from.kind === 'absent' || to.kind === 'absent' || from.kind === 'twice' || to.kind === 'twice') valid = false;
    else if (from.kind === 'hostile' || to.kind === 'hostile') valid = undefined;
    else {
      const [start, end] = [from.bound.startMs, to.bound.endMs];
      valid = start !== undefined && end !== undefined && start <= end && end - start + 1 <= 366 * dayMs;
    }
    return { pairs, valid };
  };
  const cleanPair = fc.oneof(
    fc.tuple(validDayBound, fc.oneof(fc.integer({ min: 0, max: 365 }), fc.constantFrom(0, 365))).map(([from, span]): [Bound, Bound] => [from, boundAfter(from, span)]),
    // Timestamps: to up to 366 days less a millisecond after from.
    ...(options.timestamps
      ? [
          fc.tuple(validTimestampBound, fc.oneof(fc.integer({ min: 0, max: 366 * dayMs - 1 }), fc.constant(366 * dayMs - 1))).map(([from, delta]): [Bound, Bound] => {
            const ms = from.startMs! + delta;
            return [from, { text: new Date(ms).toISOString(), startMs: ms, endMs: ms }];
          }),
        ]
      : []),
  );
  return {
    any: fc.oneof(fc.tuple(bound, bound), nearTo).chain(([from, to]) => fc.tuple(slot(from), slot(to))).map(toPart),
    clean: cleanPair.map(([from, to]) => toPart([{ kind: 'bound', bound: from }, { kind: 'bound', bound: to }])),
  };
}

interface Pool {
  valid: string[];
  invalid: string[];
}

const asValues = (texts: string[], valid: Verdict) => fc.constantFrom(...texts).map((text): Value => ({ text: encode(text), valid }));

/** An optional (or required) parameter: absent, a value of `pool` with its verdict, a hostile value, or given twice (refused). */
function param(name: string, pool: Pool | fc.Arbitrary<Value>, required = false): Param {
  const values = 'valid' in pool ? fc.oneof(asValues(pool.valid, true), asValues(pool.invalid, false)) : pool;
  const absent = fc.constant<Part>({ pairs: [], valid: !required });
  const one = (value: Value): Part => ({ pairs: [[name, value.text]], valid: value.valid });
  return {
    any: fc.oneof(
      { arbitrary: absent, weight: 4 },
      { arbitrary: values.map(one), weight: 6 },
      { arbitrary: hostileQueryValue.map(one), weight: 2 },
      { arbitrary: fc.tuple(values, values).map(([a, b]): Part => ({ pairs: [[name, a.text], [name, b.text]], valid: false })), weight: 1 },
    ),
    clean: 'valid' in pool ? (required ? asValues(pool.valid, true).map(one) : fc.oneof(absent, asValues(pool.valid, true).map(one))) : fc.constant<Part>({ pairs: [], valid: !required }),
  };
}

const models = ['first_touch', 'last_touch', 'last_non_direct', 'linear', 'position_based', 'time_decay'];
const modelPool: Pool = { valid: models, invalid: ['', 'u_shaped', 'LINEAR', 'linear ', 'data_driven'] };
const labelPool: Pool = { valid: ['google', 'bing', 'spring', 'ü', 'a'.repeat(256), 'a b'], invalid: ['', 'x'.repeat(257)] };
const limitPool = (max: number): Pool => ({ valid: ['1', String(max), '2', '10', '007'], invalid: ['0', String(max + 1), '-1', '1.5', '1e3', '', ' 1', '0x10', '9'.repeat(12)] });
/** Names no route reads, prototype keys among them: ignored. */
const extraNames = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'FROM', 'from[]', 'to%5B%5D', 'foo', '', 'utm_source'];
const extras = fc.array(fc.tuple(fc.constantFrom(...extraNames), hostileQueryValue), { maxLength: 2 }).map((list) => list.map(([name, value]): [string, string] => [name, value.text]));

interface Query {
  text: string;
  valid: Verdict;
}

/** A query string of the parameters in any order, with extra names; a third of them built of valid values only. */
function queryOf(params: Param[]): fc.Arbitrary<Query> {
  const build = (parts: fc.Arbitrary<Part>[]) =>
    fc.tuple(fc.tuple(...parts), extras).chain(([list, extra]) => {
      const pairs = [...list.flatMap((part) => part.pairs), ...extra];
      return fc.shuffledSubarray(pairs, { minLength: pairs.length }).map((shuffled) => ({
        text: shuffled.map(([name, value]) => `${name}=${value}`).join('&'),
        valid: all(...list.map((part) => part.valid)),
      }));
    });
  return fc.oneof({ arbitrary: build(params.map((item) => item.any)), weight: 2 }, { arbitrary: build(params.map((item) => item.clean)), weight: 1 });
}

// ── Spend entries: each field's values with their verdicts, as JSON text and as CSV text ─────────────────────────

interface Field {
  /** The value itself (undefined: the field is left out). */
  value: unknown;
  /** The verbatim JSON text, for values JSON.stringify cannot write. */
  json?: string;
  valid: Verdict;
}

const exponents: Record<string, number> = { USD: 2, EUR: 2, JPY: 0, KWD: 3 };

/** A field's generators: valid values, and the rest (invalid, or of unknown verdict). */
interface FieldPool {
  valid: fc.Arbitrary<Field>;
  other: fc.Arbitrary<Field>;
}
const fieldOf = (pool: FieldPool) => fc.oneof({ arbitrary: pool.valid, weight: 3 }, { arbitrary: pool.other, weight: 1 });

const currencyField: FieldPool = {
  valid: fc.constantFrom(...Object.keys(exponents)).map((value): Field => ({ value, valid: true })),
  other: fc.oneof(
    fc.constantFrom('EURO', 'eur', '', 'US', 'U$D', '€', 'EU1', ' USD', 'USD ', 'XYZ', 'usd', 'Eur').map((value): Field => ({ value, valid: false })),
    fc.constantFrom(null, 840, true, ['USD'], { code: 'USD' }).map((value): Field => ({ value, valid: false })),
    fc.constant<Field>({ value: undefined, valid: false }),
    naughtyString.map((value): Field => ({ value, valid: undefined })),
  ),
};
const amountTexts = ['12.50', '12.5', '0', '0.00', '1200', '1200.000', '1.250', '0.001', '7', '999999999999999', '999999999999999.99', '90071992547409.93', '12.505', '1.2345', '-1.00', '1e3', '', ' 5 ', '1,50', '.5', '5.', '0x10', '１２'];
/** Amounts are judged against the currency (entryVerdict): their own verdict is left open. */
const amountField: FieldPool = {
  valid: fc.constantFrom(...amountTexts).map((value): Field => ({ value, valid: undefined })),
  other: fc.oneof(
    fc.constantFrom(12.5, 0, 1200, -1, null, true, { amount: '1' }).map((value): Field => ({ value, valid: false })),
    fc.constant<Field>({ json: '1e309', value: Infinity, valid: false }),
    fc.constant<Field>({ value: undefined, valid: false }),
    naughtyString.map((value): Field => ({ value, valid: undefined })),
  ),
};

/** The rule, independently: a non-negative decimal of at most the currency's decimals, exact in a double. */
function amountFits(amount: string, currency: string): boolean {
  const match = /^(\d{1,15})(?:\.(\d{1,18}))?$/.exec(amount.trim());
  const exponent = exponents[currency];
  if (!match || exponent === undefined) return false;
  const decimals = (match[2] ?? '').replace(/0+$/, '');
  if (decimals.length > exponent) return false;
  return BigInt(match[1]! + decimals.padEnd(exponent, '0')) <= BigInt(Number.MAX_SAFE_INTEGER);
}

const dayField: FieldPool = {
  valid: fc.integer({ min: 0, max: 800 }).map((offset): Field => ({ value: dayText(firstDay + offset), valid: true })),
  other: fc.oneof(
    invalidDay.map((value): Field => ({ value, valid: false })),
    fc.constantFrom(20260601, null, ['2026-06-01']).map((value): Field => ({ value, valid: false })),
    fc.constant<Field>({ value: undefined, valid: false }),
  ),
};
const sourceField: FieldPool = {
  valid: fc.constantFrom('google', 'bing', ' padded ', 'ü', 'a'.repeat(256), 'with,comma', 'with "quotes"', 'two\nlines').map((value): Field => ({ value, valid: true })),
  other: fc.oneof(
    fc.constantFrom('', ' ', 'x'.repeat(257)).map((value): Field => ({ value, valid: false })),
    fc.constantFrom(null, 1, false, {}).map((value): Field => ({ value, valid: false })),
    fc.constant<Field>({ value: undefined, valid: false }),
    naughtyString.map((value): Field => ({ value, valid: undefined })),
  ),
};
const optionalLabelField: FieldPool = {
  valid: fc.oneof(fc.constantFrom('cpc', '', 'spring', 'a'.repeat(256), null).map((value): Field => ({ value, valid: true })), fc.constant<Field>({ value: undefined, valid: true })),
  other: fc.oneof(fc.constantFrom('x'.repeat(257), 5, ['cpc'], { a: 1 }).map((value): Field => ({ value, valid: false })), naughtyString.map((value): Field => ({ value, valid: undefined }))),
};
const siteIdField: FieldPool = {
  valid: fc.oneof(fc.constantFrom(siteId, null).map((value): Field => ({ value, valid: true })), fc.constant<Field>({ value: undefined, valid: true })),
  other: fc.oneof(
    fc.constantFrom('other-shop', 'nowhere', '', 12, ['fuzz-shop']).map((value): Field => ({ value, valid: false })),
    naughtyString.map((value): Field => ({ value, valid: undefined })),
  ),
};
/** JSON values of no field's type, prototype-polluting objects, deep nesting. */
const hostileJson = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
  fc.constantFrom('{"__proto__":{"polluted":"yes"}}', '{"constructor":{"prototype":{"polluted":"yes"}}}', '"\\ud800"', '1e309', '-0', '[]', '{}', '"x"', 'null', '[[[[[[[[[[]]]]]]]]]]', '{"a":'.repeat(200) + '1' + '}'.repeat(200)),
);

const entryFields = ['date', 'source', 'medium', 'campaign', 'amount', 'currency', 'site_id'] as const;
type EntryFields = Record<(typeof entryFields)[number], Field>;

/** An amount with at most the currency's decimals: valid. */
const cleanMoney = fc
  .record({ currency: fc.constantFrom(...Object.keys(exponents)), whole: fc.oneof(fc.nat({ max: 100_000 }), fc.constant(999_999_999_999)), fraction: fc.nat({ max: 999 }), trailingZeros: fc.nat({ max: 3 }) })
  .map(({ currency, whole, fraction, trailingZeros }) => {
    const decimals = String(fraction).padStart(3, '0').slice(0, exponents[currency]);
    const amount = decimals === '' ? String(whole) : `${whole}.${decimals}${'0'.repeat(trailingZeros)}`;
    return { amount: { value: amount, valid: true } as Field, currency: { value: currency, valid: true } as Field };
  });

/** Any entry (a mix of valid, invalid and hostile fields), or a clean one (every field valid). */
const entryRecord: fc.Arbitrary<EntryFields> = fc.oneof(
  {
    arbitrary: fc.record({
      date: fieldOf(dayField),
      source: fieldOf(sourceField),
      medium: fieldOf(optionalLabelField),
      campaign: fieldOf(optionalLabelField),
      amount: fieldOf(amountField),
      currency: fieldOf(currencyField),
      site_id: fieldOf(siteIdField),
    }),
    weight: 2,
  },
  {
    arbitrary: fc
      .record({ date: dayField.valid, source: sourceField.valid, medium: optionalLabelField.valid, campaign: optionalLabelField.valid, money: cleanMoney, site_id: siteIdField.valid })
      .map(({ money, ...rest }) => ({ ...rest, ...money })),
    weight: 1,
  },
);

/** The verdict of a whole entry: each field's, then the amount against the currency. */
function entryVerdict(fields: Partial<EntryFields>): Verdict {
  const { amount, currency } = fields;
  let money: Verdict = undefined;
  if (amount && currency && typeof amount.value === 'string' && currency.valid === true) money = amountFits(amount.value, currency.value as string);
  else if (amount?.valid === false || currency?.valid === false) money = false;
  return all(...Object.values(fields).map((field) => field.valid), money);
}

const jsonOfField = (field: Field) => field.json ?? JSON.stringify(field.value);

interface JsonEntry {
  text: string;
  valid: Verdict;
}

const jsonEntry: fc.Arbitrary<JsonEntry> = fc
  .record({
    fields: entryRecord,
    extra: fc.option(fc.tuple(fc.constantFrom('cost', '__proto__', 'constructor', 'id', 'created_at', ''), hostileJson), { freq: 8 }),
    order: fc.shuffledSubarray([...entryFields], { minLength: entryFields.length }),
  })
  .map(({ fields, extra, order }) => {
    const present = order.filter((name) => fields[name].value !== undefined);
    const members = present.map((name) => `${JSON.stringify(name)}:${jsonOfField(fields[name])}`);
    if (extra) members.push(`${JSON.stringify(extra[0])}:${extra[1]}`);
    // Any field but these is refused (strict object); JSON.parse makes __proto__ an own key, refused too.
    return { text: `{${members.join(',')}}`, valid: all(entryVerdict(fields), extra ? false : true) };
  });

// ── The server, its data, and the answer checks ─────────────────────────────────────────────────────────────────

let server: TestServer;
let workspaceId: string;
const tokens: Record<string, string | null> = { admin: testAdminToken, none: null, wrong: 'sk_not_a_key_0123456789' };
let attributionCursor: string;
let spendCursor: string;
let conversionId: string;

beforeAll(async () => {
  // It sends thousands of wrong credentials on purpose: the throttle has its own tests (test/http/auth-throttle.test.ts).
  const env = { RATE_LIMIT_SITE: '10000000', RATE_LIMIT_IP: '10000000', AUTH_FAILURE_BURST: '1000000' };
  server = await startTestServer({ clock: manualClock('2026-12-01T00:00:00.000Z'), projectionWaitMs: 30_000, env });
  workspaceId = (await seedWorkspace(server, slug, { sites: [siteId] })).id;
  await seedWorkspace(server, 'other', { sites: ['other-shop'] });
  tokens.key = (await createKey(server, slug, ['admin'])).plaintext;
  tokens.read = (await createKey(server, slug, ['query:read'])).plaintext;
  tokens.otherAdmin = (await createKey(server, 'other', ['admin'])).plaintext;
  // Journeys and purchases in three currencies (one without revenue), so ROI and attribution compute over data.
  const at = Date.parse('2026-06-10T08:00:00.000Z');
  const events: Record<string, unknown>[] = [];
  const currencies = [{ amount: '10.00', currency: 'USD' }, { amount: '1500', currency: 'JPY' }, { amount: '0.125', currency: 'KWD' }, undefined];
  for (let person = 0; person < 12; person++) {
    const anon = `p${person}`;
    events.push(visit(siteId, anon, at + person * dayMs, { query: utm(['google', 'bing'][person % 2]!, 'cpc', `c${person % 3}`) }));
    events.push(visit(siteId, anon, at + person * dayMs + 3_600_000, { referrer: 'https://news.example/' }));
    events.push(purchase(siteId, anon, at + person * dayMs + 7_200_000, currencies[person % 4]));
  }
  await send(server, siteId, events);
  conversionId = events[2]!.id as string;
  const spend = Array.from({ length: 30 }, (_, index) => ({ date: dayText(Date.parse('2026-06-01') / dayMs + index), source: ['google', 'bing'][index % 2], medium: 'cpc', campaign: `c${index % 3}`, amount: '5.00', currency: ['USD', 'EUR', 'JPY'][index % 3] === 'JPY' ? 'JPY' : ['USD', 'EUR'][index % 2] }));
  const created = await server.request('POST', `/v1/workspaces/${slug}/spend`, { body: spend });
  expect(created.status, created.text).toBe(201);
  const firstAttribution = await server.request('GET', `/v1/workspaces/${slug}/attribution/results?model=linear&from=2026-06-01&to=2026-06-30&limit=1`);
  attributionCursor = firstAttribution.body.next_cursor;
  const firstSpend = await server.request('GET', `/v1/workspaces/${slug}/spend?from=2026-06-01&to=2026-06-30&limit=1`);
  spendCursor = firstSpend.body.next_cursor;
  expect([attributionCursor, spendCursor].every((cursor) => typeof cursor === 'string')).toBe(true);
});
afterAll(() => server.close());

/** Cursors: the real one, altered ones, one of another kind, and forged ones. */
function cursorValues(real: () => string): fc.Arbitrary<Value> {
  return fc.oneof(
    // A real cursor is valid only for its own query: the verdict is left to the server.
    fc.constant(null).map(() => ({ text: encode(real()), valid: undefined })),
    fc.tuple(fc.nat(), fc.constantFrom('A', '_', '-', '.', '')).map(([at, char]) => {
      const text = real();
      const index = at % text.length;
      return { text: encode(text.slice(0, index) + char + text.slice(index + 1)), valid: undefined };
    }),
    // Without its signature (spend cursors have none: they only say where the last page ended).
    fc.constant(null).map(() => ({ text: encode(real().split('.')[0]!), valid: real().includes('.') ? false : undefined })),
    fc.constantFrom('["2026-06-01","not-a-uuid"]', '[1,2]', '{}', '[]', 'null', '"x"', '["2026-06-01","00000000-0000-0000-0000-000000000000",3]', '{"k":"attribution","f":"x","t":1}', '{"__proto__":{"p":1}}')
      .map((json) => ({ text: encode(Buffer.from(json).toString('base64url')), valid: undefined })),
    fc.constantFrom('abc.def', '.', '..', 'a.b.c', 'x'.repeat(2100) + '.y').map((text) => ({ text: encode(text), valid: false })),
  );
}

type Credential = 'admin' | 'key' | 'read' | 'none' | 'wrong' | 'otherAdmin';
const credential = (write: boolean) =>
  fc.oneof(
    { arbitrary: fc.constantFrom<Credential>('admin', 'key', ...(write ? [] : ['read' as const])), weight: 16 },
    { arbitrary: fc.constantFrom<Credential>('read', 'none', 'wrong', 'otherAdmin'), weight: 1 },
  );
const slugValue = fc.oneof(
  { arbitrary: fc.constant({ text: slug, exists: true }), weight: 20 },
  { arbitrary: fc.constantFrom('no-such-workspace', 'FUZZ', 'other').map((text) => ({ text, exists: text === 'other' ? ('other' as const) : false })), weight: 1 },
  {
    arbitrary: naughtyString.filter((text) => !['', '.', '..'].includes(text.toWellFormed()) && text !== slug).map((text) => ({ text: encode(text), exists: false as const })),
    weight: 1,
  },
);

interface Request {
  method: string;
  path: string;
  credential: Credential;
  slug: { text: string; exists: boolean | 'other' };
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The oracle's verdict on everything past access. */
  valid: Verdict;
  /** The route may answer with `rows` (CSV import refusals). */
  csv?: boolean;
}

const topLevelKeys = ['error', 'message', 'details'];

/** The access answer the credential and slug decide before any parameter is read, if they decide one. */
function accessStatus(request: Request, write: boolean): number | undefined {
  if (request.credential === 'none' || request.credential === 'wrong') return 401;
  const visible = request.slug.exists === true || (request.slug.exists === 'other' && (request.credential === 'admin' || request.credential === 'otherAdmin'));
  if (request.credential === 'otherAdmin' && request.slug.exists === true) return 404;
  if (!visible) return 404;
  if (request.credential === 'read' && write) return 403;
  return undefined;
}

function spendSnapshot(): string {
  return JSON.stringify(server.db.prepare('SELECT id, day, source, medium, campaign, amount_minor, currency, site_id, updated_at FROM spend WHERE workspace_id = ? ORDER BY id').all(workspaceId));
}

const spendCount = () => (server.db.prepare('SELECT count(*) AS n FROM spend WHERE workspace_id = ?').get(workspaceId) as { n: number }).n;

/** Sends the request and checks its answer: no 5xx, the flat envelope, documented codes, the oracle, the stored rows. */
async function check(request: Request, write: boolean): Promise<{ status: number; body: any }> {
  const before = write ? spendSnapshot() : '';
  const headers: Record<string, string> = { ...request.headers };
  const token = tokens[request.credential];
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(server.url + request.path, { method: request.method, headers, body: request.body as BodyInit | undefined });
  const text = await response.text();
  const context = `${request.method} ${request.path.slice(0, 600)} as ${request.credential}${request.body === undefined ? '' : ` with ${JSON.stringify(String(request.body).slice(0, 600))}`} → ${response.status} ${text.slice(0, 400)}`;
  expect(response.status, context).toBeLessThan(500);
  // Every answer matches the route's published OpenAPI operation (status, documented codes, schemas).
  server.answers.check({ method: request.method, path: request.path, status: response.status, contentType: response.headers.get('content-type'), text });
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    expect.fail(`${context}: the answer is not JSON`);
  }
  const expected = accessStatus(request, write);
  if (expected !== undefined) expect(response.status, context).toBe(expected);
  else if (request.valid === true) expect(response.status, context).toBeLessThan(300);
  else if (request.valid === false) expect(response.status, context).toBeGreaterThanOrEqual(400);
  if (response.status >= 400) {
    expect(Object.keys(body).filter((key) => !topLevelKeys.includes(key) && !(request.csv && key === 'rows')), context).toEqual([]);
    expect(body.error, context).toMatch(/^[a-z_]+$/);
    expect(typeof body.message === 'string' && body.message.length > 0, context).toBe(true);
    for (const detail of body.details ?? []) expect(Object.keys(detail).sort(), context).toEqual(['message', 'path']);
    for (const row of body.rows ?? []) expect(Number.isSafeInteger(row.line) && row.line >= 1 && typeof row.message === 'string', context).toBe(true);
    if (write) expect(spendSnapshot(), `${context}: a refused request changed spend`).toBe(before);
  }
  return { status: response.status, body };
}

const base = (slugText: string) => `/v1/workspaces/${slugText}`;
const prefix = fc.constantFrom('', '/v1');
const withPrefix = (path: string, chosen: string) => (chosen === '' ? path.slice(3) : path);

// ── The runs ─────────────────────────────────────────────────────────────────────────────────────────────────────

describe('hostile parameters on spend, ROI and attribution never answer 5xx', () => {
  it('GET …/spend: from, to, source, campaign, limit, cursor', { timeout: 120_000 }, async () => {
    const query = queryOf([
      rangeOf('from', 'to', { timestamps: false }),
      param('source', labelPool),
      param('campaign', labelPool),
      param('limit', limitPool(1000)),
      param('cursor', cursorValues(() => spendCursor)),
    ]);
    await fc.assert(
      fc.asyncProperty(prefix, slugValue, credential(false), query, async (chosen, slugText, who, q) => {
        await check({ method: 'GET', path: withPrefix(`${base(slugText.text)}/spend?${q.text}`, chosen), credential: who, slug: slugText, valid: q.valid }, false);
      }),
      { numRuns: runs },
    );
  });

  it('DELETE …/spend: from, to, source, campaign', { timeout: 120_000 }, async () => {
    const query = queryOf([rangeOf('from', 'to', { timestamps: false }), param('source', labelPool), param('campaign', labelPool)]);
    await fc.assert(
      fc.asyncProperty(prefix, slugValue, credential(true), query, async (chosen, slugText, who, q) => {
        const before = spendCount();
        const answer = await check({ method: 'DELETE', path: withPrefix(`${base(slugText.text)}/spend?${q.text}`, chosen), credential: who, slug: slugText, valid: q.valid }, true);
        if (answer.status === 200 && slugText.exists === true) expect(spendCount()).toBe(before - answer.body.deleted);
      }),
      // Deletions empty the table: fewer runs, and the POST runs below fill it again.
      { numRuns: runs / 2 },
    );
  });

  it('POST …/spend: one entry or an array, every field hostile', { timeout: 180_000 }, async () => {
    const bodies = fc.oneof(
      { arbitrary: jsonEntry, weight: 6 },
      {
        arbitrary: fc.array(jsonEntry, { maxLength: 5 }).map((entries) => ({ text: `[${entries.map((entry) => entry.text).join(',')}]`, valid: entries.length === 0 ? false : all(...entries.map((entry) => entry.valid)) })),
        weight: 3,
      },
      { arbitrary: hostileJson.map((text): JsonEntry => ({ text, valid: undefined })), weight: 1 },
      { arbitrary: fc.constantFrom('', '{', '[1,', 'nul', '\u0000', "{'a':1}").map((text): JsonEntry => ({ text, valid: false })), weight: 1 },
    );
    const contentType = fc.oneof({ arbitrary: fc.constant('application/json'), weight: 12 }, { arbitrary: fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'text/csv', 'APPLICATION/JSON', 'application/json; charset=latin1'), weight: 1 });
    await fc.assert(
      fc.asyncProperty(prefix, slugValue, credential(true), bodies, contentType, async (chosen, slugText, who, body, type) => {
        const before = spendCount();
        const plainJson = type === 'application/json';
        const answer = await check(
          { method: 'POST', path: withPrefix(`${base(slugText.text)}/spend`, chosen), credential: who, slug: slugText, headers: { 'content-type': type }, body: body.text, valid: plainJson ? body.valid : undefined },
          true,
        );
        if (answer.status === 201 && slugText.exists === true) expect(spendCount()).toBe(before + (answer.body.entries?.length ?? 1));
      }),
      { numRuns: runs * 2 },
    );
  });

  it('POST …/spend/csv: hostile lines, headers, quoting, bytes', { timeout: 120_000 }, async () => {
    const csvField = (field: Field, quote: boolean): string => {
      const text = typeof field.value === 'string' ? field.value : field.value === null || field.value === undefined ? '' : JSON.stringify(field.value);
      return quote || /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
    };
    const line = fc.record({ fields: entryRecord, quote: fc.boolean(), columns: fc.oneof({ arbitrary: fc.constant(6), weight: 10 }, { arbitrary: fc.constantFrom(5, 7), weight: 1 }) }).map(({ fields, quote, columns }) => {
      const names = ['date', 'source', 'medium', 'campaign', 'amount', 'currency'] as const;
      // A CSV field is text: null and an absent field are an empty field; other JSON values are their text.
      const asText = Object.fromEntries(names.map((name) => {
        const field = fields[name];
        const text = typeof field.value === 'string' ? field.value : field.value === null || field.value === undefined ? '' : JSON.stringify(field.value);
        return [name, { value: text, valid: typeof field.value === 'string' ? field.valid : undefined }];
      })) as Record<(typeof names)[number], Field>;
      const texts = names.map((name) => csvField(asText[name], quote)).slice(0, columns);
      while (texts.length < columns) texts.push('extra');
      return { text: texts.join(','), valid: columns === 6 ? entryVerdict(asText) : false };
    });
    const header = fc.oneof(
      { arbitrary: fc.constantFrom(csvHeader, 'DATE,Source,MEDIUM,campaign,amount,currency', ' date , source,medium,campaign,amount,currency').map((text) => ({ text, valid: true })), weight: 10 },
      { arbitrary: fc.constantFrom('source,date,medium,campaign,amount,currency', 'date,source,medium,campaign,amount', `${csvHeader},extra`, '', '"date,source"').map((text) => ({ text, valid: false })), weight: 1 },
    );
    const file = fc
      .record({ header, lines: fc.array(line, { maxLength: 5 }), eol: fc.constantFrom('\n', '\r\n'), bom: fc.boolean(), blank: fc.boolean() })
      .map(({ header, lines, eol, bom, blank }) => ({
        text: (bom ? '\ufeff' : '') + [header.text, ...(blank ? [''] : []), ...lines.map((entry) => entry.text)].join(eol) + eol,
        valid: all(header.valid, ...lines.map((entry) => entry.valid)),
      }));
    const bodies = fc.oneof(
      { arbitrary: file, weight: 10 },
      { arbitrary: fc.tuple(file, fc.nat()).map(([body, cut]) => ({ text: body.text.slice(0, cut % Math.max(1, body.text.length)), valid: undefined })), weight: 1 },
      { arbitrary: fc.constantFrom(`${csvHeader}\n"unterminated,x,y,z,1,USD\n`, `${csvHeader}\n2026-01-01,"a"b,c,d,1,USD\n`, '\u0000\u0001', '"', '""""').map((text) => ({ text, valid: false })), weight: 1 },
      { arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ text: bytes, valid: undefined })), weight: 1 },
      {
        arbitrary: fc.tuple(file, fc.constantFrom([0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff], [0xe2, 0x82])).map(([body, bytes]) => ({
          text: new Uint8Array(Buffer.concat([Buffer.from(`${csvHeader}\n2026-01-01,`), Buffer.from(bytes), Buffer.from(`,cpc,x,1.00,USD\n${String(body.text).split('\n').slice(1).join('\n')}`)])),
          valid: undefined,
        })),
        weight: 1,
      },
    );
    const contentType = fc.oneof({ arbitrary: fc.constant('text/csv'), weight: 12 }, { arbitrary: fc.constantFrom('text/csv; charset=utf-8', 'application/json', 'text/plain', 'TEXT/CSV', 'text/csv; charset=latin1'), weight: 1 });
    await fc.assert(
      fc.asyncProperty(prefix, slugValue, credential(true), bodies, contentType, async (chosen, slugText, who, body, type) => {
        const before = spendCount();
        const answer = await check(
          { method: 'POST', path: withPrefix(`${base(slugText.text)}/spend/csv`, chosen), credential: who, slug: slugText, headers: { 'content-type': type }, body: body.text, valid: type === 'text/csv' ? body.valid : undefined, csv: true },
          true,
        );
        if (answer.status === 201 && slugText.exists === true) expect(spendCount()).toBe(before + answer.body.imported);
      }),
      { numRuns: runs },
    );
  });

  it('PATCH …/spend/:id: ids and every field hostile, checked against the stored entry', { timeout: 120_000 }, async () => {
    const idValue = fc.oneof(
      { arbitrary: fc.nat().map((index) => ({ kind: 'stored' as const, index })), weight: 8 },
      { arbitrary: fc.uuid().map((text) => ({ kind: 'text' as const, text })), weight: 1 },
      { arbitrary: naughtyString.filter((text) => !['', '.', '..'].includes(text.toWellFormed())).map((text) => ({ kind: 'text' as const, text })), weight: 1 },
    );
    const patchBody = fc.oneof(
      { arbitrary: fc.record({ fields: entryRecord, keep: fc.subarray([...entryFields]) }), weight: 10 },
      { arbitrary: hostileJson.map((text) => ({ text })), weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(prefix, slugValue, credential(true), idValue, patchBody, async (chosen, slugText, who, id, patch) => {
        const rows = server.db.prepare('SELECT id, amount_minor, currency FROM spend WHERE workspace_id = ? ORDER BY id').all(workspaceId) as { id: string; amount_minor: number; currency: string }[];
        const stored = id.kind === 'stored' ? rows[id.index % Math.max(1, rows.length)] : undefined;
        const idText = stored?.id ?? (id.kind === 'text' ? id.text : crypto.randomUUID());
        let text: string;
        let valid: Verdict;
        if ('text' in patch) {
          [text, valid] = [patch.text, undefined];
        } else {
          const present = patch.keep.filter((name) => patch.fields[name].value !== undefined);
          text = `{${present.map((name) => `${JSON.stringify(name)}:${jsonOfField(patch.fields[name])}`).join(',')}}`;
          const chosenFields = Object.fromEntries(present.map((name) => [name, patch.fields[name]])) as Partial<EntryFields>;
          if (!stored) valid = present.length === 0 ? false : undefined;
          else if (present.length === 0) valid = false;
          else {
            // Merged with the stored entry: a stored amount is valid in its own currency.
            const storedAmount: Field = { value: (stored.amount_minor / 10 ** exponents[stored.currency]!).toFixed(exponents[stored.currency]!), valid: true };
            const currency = chosenFields.currency ?? { value: stored.currency, valid: true };
            const currencyChanged = chosenFields.currency !== undefined && chosenFields.currency.value !== stored.currency;
            valid = all(entryVerdict({ ...chosenFields, amount: chosenFields.amount ?? storedAmount, currency }), currencyChanged && !chosenFields.amount ? false : true);
          }
        }
        const answer = await check(
          {
            method: 'PATCH',
            path: withPrefix(`${base(slugText.text)}/spend/${encode(idText)}`, chosen),
            credential: who,
            slug: slugText,
            headers: { 'content-type': 'application/json' },
            body: text,
            // Another workspace holds none of these entries.
            valid: slugText.exists === true ? valid : undefined,
          },
          true,
        );
        // No stored entry has a naughty or random id.
        if (id.kind === 'text') expect(answer.status).not.toBe(200);
      }),
      { numRuns: runs },
    );
  });

  it('GET …/attribution/results: model, from, to (dates and timestamps), conversion_id, limit, cursor', { timeout: 180_000 }, async () => {
    const conversion: Pool = { valid: [conversionId, conversionId.toUpperCase(), crypto.randomUUID(), 'x'.repeat(128), 'not-a-uuid'], invalid: ['', 'x'.repeat(129)] };
    const query = queryOf([
      param('model', modelPool, true),
      rangeOf('from', 'to', { timestamps: true }),
      param('conversion_id', conversion),
      param('limit', limitPool(10_000)),
      param('cursor', cursorValues(() => attributionCursor)),
    ]);
    await fc.assert(
      fc.asyncProperty(prefix, slugValue, credential(false), query, async (chosen, slugText, who, q) => {
        await check({ method: 'GET', path: withPrefix(`${base(slugText.text)}/attribution/results?${q.text}`, chosen), credential: who, slug: slugText, valid: q.valid }, false);
      }),
      { numRuns: runs },
    );
  });

  it('GET …/roi: from, to, model', { timeout: 120_000 }, async () => {
    const query = queryOf([rangeOf('from', 'to', { timestamps: false }), param('model', modelPool)]);
    await fc.assert(
      fc.asyncProperty(prefix, slugValue, credential(false), query, async (chosen, slugText, who, q) => {
        await check({ method: 'GET', path: withPrefix(`${base(slugText.text)}/roi?${q.text}`, chosen), credential: who, slug: slugText, valid: q.valid }, false);
      }),
      { numRuns: runs },
    );
  });

  it('GET …/roi/compare: from, to, compare_from, compare_to, model', { timeout: 120_000 }, async () => {
    const query = queryOf([rangeOf('from', 'to', { timestamps: false }), rangeOf('compare_from', 'compare_to', { timestamps: false }), param('model', modelPool)]);
    await fc.assert(
      fc.asyncProperty(prefix, slugValue, credential(false), query, async (chosen, slugText, who, q) => {
        await check({ method: 'GET', path: withPrefix(`${base(slugText.text)}/roi/compare?${q.text}`, chosen), credential: who, slug: slugText, valid: q.valid }, false);
      }),
      { numRuns: runs },
    );
  });

  it('leaves the server healthy and prototypes clean', async () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await server.request('GET', '/healthz', { token: null })).status).toBe(200);
    const roi = await server.request('GET', `/v1/workspaces/${slug}/roi?from=2026-01-01&to=2026-12-31`);
    expect(roi.status, roi.text).toBe(200);
  });
});
