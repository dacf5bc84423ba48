// segment=<id> on a report (CONTRACT section 10): the segment's filters are put into the report's query exactly as
// if the caller had sent them, so the answer is the same as for those parameters. A filter named both by the segment
// and by the request is refused (which would win is not obvious); an unknown or invisible segment too.
import type { Db } from '../db/open.ts';
import { ApiError } from '../http/errors.ts';
import type { QueryValues } from '../reading/common-params.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import { canSee } from './owner.ts';
import { findSegmentRow } from './queries/segment-rows.ts';

/** The query with the segment's filters in it (unchanged without segment=). `ownerId` null: a share link's reader. */
export function withSegmentFilters(db: Db, site: SiteRow, ownerId: string | null, query: QueryValues): QueryValues {
  const id = query.segment;
  if (id === undefined) return query;
  if (Array.isArray(id)) throw ApiError.invalidParam([{ path: '/segment', message: 'must be given once' }]);
  const row = id.length <= 64 ? findSegmentRow(db, site.id, id) : undefined;
  if (!row || !canSee(row, ownerId)) throw ApiError.invalidParam([{ path: '/segment', message: 'must be the id of a segment of this site you can see' }]);
  const filters = JSON.parse(row.filters) as Record<string, string>;
  const clashes = Object.keys(filters).filter((name) => query[name] !== undefined);
  if (clashes.length > 0) {
    throw ApiError.invalidParam(clashes.map((name) => ({ path: `/${name}`, message: 'is set by the segment too: leave it out, or leave the segment out' })));
  }
  const { segment: _segment, ...rest } = query;
  return { ...rest, ...filters };
}
