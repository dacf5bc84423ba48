// The answer schemas of the spend endpoints, published at GET /v1/schemas and in GET /v1/openapi.json.
import * as v from 'valibot';

const IsoTime = v.pipe(v.string(), v.isoTimestamp());
const Day = v.pipe(v.string(), v.isoDate());
const Decimal = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/));
const Currency = v.pipe(v.string(), v.regex(/^[A-Z]{3}$/));

export const SpendEntryAnswer = v.strictObject({
  id: v.pipe(v.string(), v.uuid()),
  date: Day,
  source: v.pipe(v.string(), v.minLength(1)),
  medium: v.nullable(v.string()),
  campaign: v.nullable(v.string()),
  /** Exact decimal string in the currency's exponent (JPY "1200", USD "12.50", KWD "1.250"). */
  amount: Decimal,
  currency: Currency,
  site_id: v.nullable(v.string()),
  created_at: IsoTime,
  updated_at: IsoTime,
});

/** POST with one entry answers that entry; with an array, { entries } in the order given. */
export const CreatedSpendAnswer = v.union([SpendEntryAnswer, v.strictObject({ entries: v.array(SpendEntryAnswer) })]);

export const SpendPageAnswer = v.strictObject({ entries: v.array(SpendEntryAnswer), next_cursor: v.nullable(v.pipe(v.string(), v.minLength(1))) });

export const SpendImportAnswer = v.strictObject({ imported: v.pipe(v.number(), v.integer(), v.minValue(0)) });

export const SpendDeleteAnswer = v.strictObject({ deleted: v.pipe(v.number(), v.integer(), v.minValue(0)) });
