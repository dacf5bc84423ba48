// How a registered route is named in the published documents: its templated paths, its operationId and the key of
// its answer schema at GET /v1/schemas.
import type { RouteSpec } from '../http/routes.ts';

type NamedRoute = Pick<RouteSpec, 'method' | 'path'>;

/**
 * The OpenAPI form of a route path: `:name` segments become `{name}`.
 * @example toTemplatePath('/sites/:siteId/dlq/:eventId/replay') // '/sites/{siteId}/dlq/{eventId}/replay'
 */
export function toTemplatePath(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment))
    .join('/');
}

/** The names of a route path's parameters, in order. */
export function pathParameterNames(path: string): string[] {
  return path
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => segment.slice(1));
}

/** The canonical path of a route: every route is served under /v1 (spec, Versioning). */
export function canonicalPathOf(route: NamedRoute): string {
  return toTemplatePath(`/v1${route.path}`);
}

/**
 * The key of a route's answer schema at GET /v1/schemas: the method and the canonical templated path.
 * @example answerKeyOf({ method: 'GET', path: '/sites/:siteId/reports/summary-v2' }) // 'GET /v1/sites/{siteId}/reports/summary-v2'
 */
export function answerKeyOf(route: NamedRoute): string {
  return `${route.method} ${canonicalPathOf(route)}`;
}

function toPascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}

/**
 * A stable identifier for a route (the operationId of its canonical /v1 operation; component names derive from it).
 * @example operationIdOf({ method: 'DELETE', path: '/workspaces/:slug/keys/:keyId' }) // 'deleteWorkspacesBySlugKeysByKeyId'
 */
export function operationIdOf(route: NamedRoute): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `By${toPascalCase(segment.slice(1))}` : toPascalCase(segment)));
  return route.method.toLowerCase() + words.join('');
}
