// Registers a route at its unprefixed path and under /v1, wraps it with the error renderer of its envelope family,
// and adds RFC 8594 deprecation headers to routes marked deprecated.
import type { H3, H3Event, HTTPMethod } from 'h3';
import type * as v from 'valibot';
import { type EnvelopeFamily, renderError } from './errors.ts';
import type { Refusals } from './refusals.ts';
import { finishResponse, toResponse } from './respond.ts';

export interface Deprecation {
  /** When the deprecation was announced. */
  announced: Date;
  /** When the route goes away (at least 12 months after `announced`). */
  sunset: Date;
  /** Documentation of the migration. */
  link: string;
}

/** A query parameter as the OpenAPI document describes it. */
export interface QueryParameterDoc {
  name: string;
  description: string;
  required?: boolean;
  /** A JSON Schema of the (string) value; defaults to { type: 'string' }. */
  schema?: Record<string, unknown>;
}

/** What a handler may return: the answer its schema describes, or a Response it built. */
type Answered<Answer> = Answer extends v.GenericSchema ? v.InferOutput<Answer> : unknown;

export interface RouteSpec<Answer extends v.GenericSchema | undefined = v.GenericSchema | undefined> {
  method: HTTPMethod;
  /** The unprefixed path, e.g. `/workspaces/:slug`. */
  path: string;
  handler: (event: H3Event) => Answered<Answer> | Response | Promise<Answered<Answer> | Response>;
  /** The schema of the successful JSON answer: types the handler, published at /v1/schemas and /v1/openapi.json. */
  answer?: Answer;
  /** Every refusal the route may answer with (src/http/refusals.ts); published, and checked by the test suite. */
  refusals: Refusals;
  /** Status of a successful answer the handler returns as a value (default 200). */
  status?: number;
  /** A non-JSON successful answer (e.g. text/event-stream, text/plain; several when a parameter picks), for the OpenAPI document. */
  produces?: string | readonly string[];
  /** Query parameters, for the OpenAPI document. */
  query?: readonly QueryParameterDoc[];
  /** The schema of the JSON request body, for the OpenAPI document. */
  body?: v.GenericSchema;
  /** Defaults to the family of the path (see `envelopeFamilyOf`). */
  envelope?: EnvelopeFamily;
  deprecation?: Deprecation;
  /** New endpoints exist only under /v1 (spec, Versioning). */
  versionedOnly?: boolean;
  /** One line for the OpenAPI document. */
  summary?: string;
  /** 'none': no bearer credential is asked for (public, or verified otherwise, e.g. by a signature). */
  auth?: 'none';
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

/** Told how long each routed request took: the route's pattern (unprefixed), its method and the answer's status. */
export type RouteObserver = (route: string, method: string, status: number, ms: number) => void;

const routeObservers = new WeakMap<H3, RouteObserver>();

/** Call before mounting routes: every route added to `app` afterwards reports its duration (the /metrics histogram). */
export function observeRoutes(app: H3, observer: RouteObserver): void {
  routeObservers.set(app, observer);
}

// Per app, not per process: tests run many apps in one process, some with routes of their own (`extend`).
const routesByApp = new WeakMap<H3, RouteSpec[]>();

/** The routes registered on `app` so far, in order: the OpenAPI document's source. */
export function registeredRoutesOf(app: H3): readonly RouteSpec[] {
  return routesByApp.get(app) ?? [];
}

/**
 * @example addRoute(app, { method: 'GET', path: '/healthz', refusals: {}, handler: () => ({ status: 'ok' }) });
 */
export function addRoute<const Answer extends v.GenericSchema | undefined = undefined>(app: H3, spec: RouteSpec<Answer>): void {
  const family = spec.envelope ?? envelopeFamilyOf(spec.path);
  const extraHeaders = spec.deprecation || spec.headers ? { ...spec.headers, ...(spec.deprecation ? deprecationHeaders(spec.deprecation) : {}) } : undefined;
  const observer = routeObservers.get(app);
  const handler = async (event: H3Event): Promise<Response> => {
    const started = observer ? performance.now() : 0;
    let response: Response;
    try {
      response = toResponse(await spec.handler(event), spec.status);
    } catch (error) {
      response = renderError(error, family);
    }
    if (extraHeaders) for (const [name, value] of Object.entries(extraHeaders)) response.headers.set(name, value);
    // Until the answer's head is ready: a stream's body (stream-v2) is not timed.
    observer?.(spec.path, spec.method, response.status, performance.now() - started);
    return finishResponse(response);
  };
  if (!spec.versionedOnly) app.on(spec.method, spec.path, handler);
  app.on(spec.method, `/v1${spec.path}`, handler);
  let routes = routesByApp.get(app);
  if (!routes) routesByApp.set(app, (routes = []));
  if (!routes.some((route) => route.method === spec.method && route.path === spec.path)) routes.push(spec as RouteSpec);
}
