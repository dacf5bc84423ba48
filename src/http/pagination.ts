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

export function encodePageCursor(key: PageKey): string {
  return Buffer.from(JSON.stringify([key.created_at, key.id]), 'utf8').toString('base64url');
}

export function decodePageCursor(cursor: string | undefined): PageKey | undefined {
  if (cursor === undefined) return undefined;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(decoded) && decoded.length === 2 && decoded.every((part) => typeof part === 'string')) {
      return { created_at: decoded[0] as string, id: decoded[1] as string };
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
