// valibot at the edge: input is parsed into typed values, and every issue becomes a JSON Pointer detail.
import * as v from 'valibot';
import { ApiError, type ErrorDetail } from './errors.ts';

/** RFC 6901 pointer of a valibot issue path. */
export function toJsonPointer(path: readonly { key: unknown }[] | undefined): string {
  if (!path || path.length === 0) return '';
  return path.map((item) => '/' + String(item.key).replaceAll('~', '~0').replaceAll('/', '~1')).join('');
}

export function toErrorDetails(issues: readonly v.BaseIssue<unknown>[], prefix = ''): ErrorDetail[] {
  return issues.map((issue) => ({ path: prefix + toJsonPointer(issue.path as { key: unknown }[] | undefined), message: issue.message }));
}

/**
 * Parses a request body; refusals are 400 invalid_payload with details.
 * @example const input = parseBody(CreateSiteBody, await readJsonBody(event));
 */
export function parseBody<const S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (!result.success) throw ApiError.invalidPayload(toErrorDetails(result.issues));
  return result.output;
}

/** Parses query parameters; refusals are 400 invalid_param with details. */
export function parseQuery<const S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (!result.success) throw ApiError.invalidParam(toErrorDetails(result.issues));
  return result.output;
}

/**
 * Characters a name may not hold: controls (NUL, tab, newline…), line and paragraph separators, and format
 * characters (U+200B zero width space, U+202E right-to-left override, U+FEFF…) but the two joiners (U+200C, U+200D:
 * Persian, Indic scripts and emoji sequences need them) and the tag characters of emoji flags (U+E0020-U+E007F).
 */
const invisibleCharacter = /[\p{Cc}\p{Zl}\p{Zp}]|(?![\u200c\u200d\u{e0020}-\u{e007f}])\p{Cf}/u;
/** Joiners and tags alone show nothing. */
const onlyJoiners = /^[\u200c\u200d\u{e0020}-\u{e007f}]+$/u;

/**
 * A name of 1-128 characters after trimming (workspaces, sites, key labels), well-formed, without control or format
 * characters, and with something visible. Characters are Unicode code points: string length counts UTF-16 units,
 * which would halve the limit for names written with emoji or astral scripts.
 */
export const TrimmedName = v.pipe(
  v.string('must be a string'),
  v.check((text) => text.isWellFormed(), 'must be well-formed Unicode (no lone surrogate)'),
  v.trim(),
  v.minLength(1, 'must not be empty'),
  v.check((text) => !invisibleCharacter.test(text), 'must not contain control or format characters'),
  v.check((text) => !onlyJoiners.test(text), 'must contain a visible character'),
  v.check((text) => [...text].length <= 128, 'must be at most 128 characters'),
);

/** A whole number in [min, max] from a query string. */
export function integerParam(min: number, max: number) {
  return v.pipe(
    v.string(),
    v.regex(/^\d{1,9}$/, `must be a whole number from ${min} to ${max}`),
    v.transform(Number),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );
}

const isoTimestampPattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses an ISO-8601 timestamp with an offset into epoch milliseconds; undefined when it is not one. */
export function parseIsoTimestamp(text: string): number | undefined {
  const match = isoTimestampPattern.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute] = match.map(Number) as number[];
  if (month! < 1 || month! > 12 || day! < 1 || day! > 31 || hour! > 23 || minute! > 59) return undefined;
  if (match[6] !== undefined && Number(match[6]) > 59) return undefined;
  const milliseconds = Date.parse(text);
  if (Number.isNaN(milliseconds)) return undefined;
  // Date.parse rolls 2026-02-31 over to March: refuse days the month does not have.
  const probe = new Date(Date.UTC(year!, month! - 1, day!));
  if (probe.getUTCMonth() !== month! - 1) return undefined;
  return milliseconds;
}

/** An ISO-8601 timestamp with an offset, as epoch milliseconds. */
export const IsoTimestampParam = v.pipe(
  v.string(),
  v.check((text) => parseIsoTimestamp(text) !== undefined, 'must be an ISO-8601 timestamp with an offset'),
  v.transform((text) => parseIsoTimestamp(text)!),
);
