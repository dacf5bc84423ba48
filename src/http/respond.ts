// Turns handler results into responses: handlers return values, this is the one place that serialises them.

const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' };

/**
 * A JSON response with an explicit status.
 * @example return json({ id }, 201);
 */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: headers ? { ...jsonHeaders, ...headers } : jsonHeaders });
}

/** 204 with no body. */
export function noContent(): Response {
  return new Response(null, { status: 204 });
}

export function toResponse(result: unknown, status = 200): Response {
  if (result instanceof Response) return result;
  return json(result ?? null, status);
}
