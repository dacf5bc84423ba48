// Turns handler results into responses: handlers return values, this is the one place that serialises them.
import { STATUS_CODES } from 'node:http';

const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' };

/**
 * A JSON response with an explicit status.
 * @example return json({ id }, 201);
 */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: headers ? { ...jsonHeaders, ...headers } : jsonHeaders });
}

/**
 * A 200 whose JSON was serialised elsewhere (the analysis thread answers with JSON text): sent as it is.
 * @example return jsonText(await analysis.run(job));
 */
export function jsonText(text: string): Response {
  return new Response(text, { headers: jsonHeaders });
}

/** 204 with no body. */
export function noContent(): Response {
  return new Response(null, { status: 204 });
}

export function toResponse(result: unknown, status = 200): Response {
  if (result instanceof Response) return result;
  return json(result ?? null, status);
}

/**
 * The last step of every h3 answer (routes and the framework's own refusals): `X-Content-Type-Options: nosniff`, so
 * no browser reads an answer as another type than it says, and the standard reason phrase, which h3's Node adapter
 * would otherwise leave empty (`HTTP/1.1 404 `). The ingest fast path gets both from Node's writeHead.
 * @example return finishResponse(renderError(error, 'structured'));
 */
export function finishResponse(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set('x-content-type-options', 'nosniff');
  return new Response(response.body, { status: response.status, statusText: STATUS_CODES[response.status] ?? '', headers });
}
