// A spend entry: its input schema (JSON body and CSV row alike), its stored row and its answer form. Amounts are
// decimal strings converted exactly to integer minor units with the currency's ISO 4217 exponent; never floats.
import * as v from 'valibot';
import { parseDateText } from '../vocabulary/periods.ts';
import { currencyExponent, fromMinorUnits, isCurrencyCode, toMinorUnits } from '../money/minor-units.ts';
import { SiteId } from '../admin/sites.ts';
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import { toErrorDetails } from '../http/validate.ts';
import type { SpendRow } from './queries/spend-writes.ts';

export const maxLabelLength = 256;

const Day = v.pipe(
  v.string('must be a date as YYYY-MM-DD'),
  v.check((text) => parseDateText(text) !== undefined, 'must be a date as YYYY-MM-DD'),
);
const Source = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(maxLabelLength, `must be at most ${maxLabelLength} characters`));
/** medium and campaign: absent, null or empty all mean "none" (null). */
const OptionalLabel = v.pipe(
  v.nullish(v.pipe(v.string('must be a string or null'), v.trim(), v.maxLength(maxLabelLength, `must be at most ${maxLabelLength} characters`)), null),
  v.transform((text) => (text === '' || text === null || text === undefined ? null : text)),
);
const AmountText = v.pipe(
  v.string('must be a decimal string such as "12.50"'),
  v.trim(),
  v.regex(/^\d{1,15}(\.\d{1,18})?$/, 'must be a non-negative decimal string such as "12.50"'),
);
const Currency = v.pipe(
  v.string('must be an ISO 4217 currency code'),
  v.check((code) => isCurrencyCode(code), 'must be a known ISO 4217 currency code in upper case, such as USD'),
);

/** One entry as POST (alone or in an array) and each CSV row give it. */
export const SpendEntryBody = v.pipe(
  v.strictObject({
    date: Day,
    source: Source,
    medium: OptionalLabel,
    campaign: OptionalLabel,
    amount: AmountText,
    currency: Currency,
    site_id: v.optional(v.nullable(SiteId), null),
  }),
  // rawCheck (not forward + partialCheck): its issue names /amount, and the OpenAPI body schema can leave it out.
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const { amount, currency } = dataset.value;
    // A failed check leaves the object typed: an unknown currency ("EURO") has its own issue, and no exponent.
    if (!isCurrencyCode(currency) || toMinorUnits(amount, currency) !== undefined) return;
    addIssue({
      message: `must have at most ${currencyExponent(currency)} decimals for ${currency} and fit exactly`,
      path: [{ type: 'object', origin: 'value', input: dataset.value, key: 'amount', value: amount }],
    });
  }),
);
export type SpendEntryInput = v.InferOutput<typeof SpendEntryBody>;

/** At most this many entries in one POST. */
export const maxEntriesPerPost = 1000;

export const SpendArrayBody = v.pipe(
  v.array(SpendEntryBody),
  v.minLength(1, 'must hold at least one entry'),
  v.maxLength(maxEntriesPerPost, `must hold at most ${maxEntriesPerPost} entries`),
);

/** What POST documents: one entry or an array (the handler parses whichever was sent, for precise details). */
export const SpendPostBody = v.union([SpendEntryBody, SpendArrayBody]);

/** PATCH: any of the fields; a new currency needs its amount too (an amount is never rescaled). */
export const SpendPatchBody = v.pipe(
  v.strictObject({
    date: v.optional(v.unknown()),
    source: v.optional(v.unknown()),
    medium: v.optional(v.unknown()),
    campaign: v.optional(v.unknown()),
    amount: v.optional(v.unknown()),
    currency: v.optional(v.unknown()),
    site_id: v.optional(v.unknown()),
  }),
  v.check((input) => Object.keys(input).length > 0, 'must change at least one field'),
);

/**
 * 400 invalid_payload whose message names the first problem: the flat envelope's clients often show only `message`.
 * @example spendPayloadError([{ path: '/currency', message: 'must be …' }]).message // 'Invalid spend entry: /currency must be …'
 */
export function spendPayloadError(details: ErrorDetail[]): ApiError {
  const [first] = details;
  if (!first) return ApiError.invalidPayload(details);
  const more = details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''} in details)` : '';
  return ApiError.invalidPayload(details, `Invalid spend entry: ${first.path || 'the body'} ${first.message}${more}`);
}

/** Parses a spend body (an entry, an array of them, a patch); a refusal is spendPayloadError's. */
export function parseSpendBody<const S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (!result.success) throw spendPayloadError(toErrorDetails(result.issues));
  return result.output;
}

/** The answer form of a spend entry. */
export interface SpendEntry {
  id: string;
  date: string;
  source: string;
  medium: string | null;
  campaign: string | null;
  amount: string;
  currency: string;
  site_id: string | null;
  created_at: string;
  updated_at: string;
}

export function toSpendEntry(row: SpendRow): SpendEntry {
  return { id: row.id, ...toEntryInput(row), created_at: row.created_at, updated_at: row.updated_at };
}

/** The stored amount of a parsed entry (SpendEntryBody has checked it converts). */
export function amountMinorOf(input: SpendEntryInput): number {
  return toMinorUnits(input.amount, input.currency)!;
}

/** A stored row in the input form, so a PATCH is checked by the same schema as a POST. */
export function toEntryInput(row: SpendRow): Omit<SpendEntry, 'id' | 'created_at' | 'updated_at'> {
  return {
    date: row.day,
    source: row.source,
    medium: row.medium,
    campaign: row.campaign,
    amount: fromMinorUnits(row.amount_minor, row.currency),
    currency: row.currency,
    site_id: row.site_id,
  };
}
