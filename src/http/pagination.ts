// Keyset pagination for administrative lists: ordered by (created_at, id), the cursor names the last row shown.
import * as v from 'valibot';
import { ApiError } from './errors.ts';
import { integerParam } from './validate.ts';

export interface PageKey {
  created_at: string;
  id: string;
}

/** Query parameters of every administrative list: limit 1-1000 (default 100) and an opaque cursor. */
export const ListQuery = v.object({
  limit: v.optional(integerParam(1, 1000), '100'),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(512))),
});

/** What `toIso` writes, and what every created_at column holds. */
const storedTimestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const rowIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

export function encodePageCursor(key: PageKey): string {
  return Buffer.from(JSON.stringify([key.created_at, key.id]), 'utf8').toString('base64url');
}

export function decodePageCursor(cursor: string | undefined): PageKey | undefined {
  if (cursor === undefined) return undefined;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    // Only the shape this server encodes: a stored timestamp and a row id (a UUID or a site id).
    if (
      Array.isArray(decoded) &&
      decoded.length === 2 &&
      typeof decoded[0] === 'string' &&
      typeof decoded[1] === 'string' &&
      storedTimestampPattern.test(decoded[0]) &&
      rowIdPattern.test(decoded[1])
    ) {
      return { created_at: decoded[0], id: decoded[1] };
    }
  } catch {
    // fall through to the refusal
  }
  throw ApiError.invalidParam([{ path: '/cursor', message: 'is not a cursor this server issued' }]);
}

/** Cuts the limit+1 rows a query fetched into one page and the cursor of the next. */
export function toPage<Row extends PageKey>(rows: Row[], limit: number): { rows: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  return { rows: page, nextCursor: rows.length > limit ? encodePageCursor(page[page.length - 1]!) : null };
}

/** SQL parameters for "after this cursor" (an empty key sorts before every row). */
export function afterParams(key: PageKey | undefined): { afterCreatedAt: string; afterId: string } {
  return { afterCreatedAt: key?.created_at ?? '', afterId: key?.id ?? '' };
}
