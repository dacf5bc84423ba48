// Registers a route at its unprefixed path and under /v1, wraps it with the error renderer of its envelope family,
// and adds RFC 8594 deprecation headers to routes marked deprecated.
import type { H3, H3Event, HTTPMethod } from 'h3';
import { type EnvelopeFamily, renderError } from './errors.ts';
import { toResponse } from './respond.ts';

export interface Deprecation {
  /** When the deprecation was announced. */
  announced: Date;
  /** When the route goes away (at least 12 months after `announced`). */
  sunset: Date;
  /** Documentation of the migration. */
  link: string;
}

export interface RouteSpec {
  method: HTTPMethod;
  /** The unprefixed path, e.g. `/workspaces/:slug`. */
  path: string;
  handler: (event: H3Event) => unknown;
  /** Defaults to the family of the path (see `envelopeFamilyOf`). */
  envelope?: EnvelopeFamily;
  deprecation?: Deprecation;
  /** New endpoints exist only under /v1 (spec, Versioning). */
  versionedOnly?: boolean;
  /** One line for the OpenAPI document. */
  summary?: string;
  /** Headers on every answer of the route, errors included (e.g. CORS on /events). */
  headers?: Record<string, string>;
}

/**
 * Workspace endpoints (but funnels), webhooks, attribution, ROI, spend and the bridge answer with the flat
 * envelope; everything else with the structured one (CONTRACT section 8).
 */
export function envelopeFamilyOf(path: string): EnvelopeFamily {
  const unprefixed = path.startsWith('/v1/') ? path.slice(3) : path;
  if (unprefixed.includes('/analysis/funnels-v2')) return 'structured';
  if (unprefixed.startsWith('/workspaces') || unprefixed.startsWith('/webhooks')) return 'flat';
  return 'structured';
}

export function deprecationHeaders(deprecation: Deprecation): Record<string, string> {
  return {
    deprecation: deprecation.announced.toUTCString(),
    sunset: deprecation.sunset.toUTCString(),
    link: `<${deprecation.link}>; rel="deprecation"`,
  };
}

/** Every route registered so far, for the OpenAPI document. */
export const registeredRoutes: RouteSpec[] = [];

/**
 * @example addRoute(app, { method: 'GET', path: '/healthz', handler: () => ({ status: 'ok' }) });
 */
export function addRoute(app: H3, spec: RouteSpec): void {
  const family = spec.envelope ?? envelopeFamilyOf(spec.path);
  const extraHeaders = spec.deprecation || spec.headers ? { ...spec.headers, ...(spec.deprecation ? deprecationHeaders(spec.deprecation) : {}) } : undefined;
  const handler = async (event: H3Event): Promise<Response> => {
    let response: Response;
    try {
      response = toResponse(await spec.handler(event));
    } catch (error) {
      response = renderError(error, family);
    }
    if (extraHeaders) for (const [name, value] of Object.entries(extraHeaders)) response.headers.set(name, value);
    return response;
  };
  if (!spec.versionedOnly) app.on(spec.method, spec.path, handler);
  app.on(spec.method, `/v1${spec.path}`, handler);
  if (!registeredRoutes.some((route) => route.method === spec.method && route.path === spec.path)) registeredRoutes.push(spec);
}
