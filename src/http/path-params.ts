// A route's path parameters, decoded: one helper instead of the same getRouterParam call in every domain.
import { getRouterParam, type H3Event } from 'h3';

/**
 * The decoded value of a `:name` segment of the route, or '' when it is absent (a lookup of '' finds nothing: 404).
 * @example const site = findSite(db, pathParam(event, 'siteId'));
 */
export function pathParam(event: H3Event, name: string): string {
  return getRouterParam(event, name, { decode: true }) ?? '';
}
