// What a route may refuse with: each 4xx/502/503 status and its error codes. Every route declares its refusals; the
// OpenAPI document publishes them (the code as an enum in the envelope), and the test suite checks every refusal
// it receives against them, so a new refusal cannot go undocumented.

/** Status → the stable error codes a route may answer with it. 500 internal_error needs no declaration. */
export type Refusals = Readonly<Record<number, readonly string[]>>;

/** One set of refusals from several: codes of the same status are united, in order, without repeats. */
export function refusals(...sets: Refusals[]): Refusals {
  const merged: Record<number, string[]> = {};
  for (const set of sets) {
    for (const [status, codes] of Object.entries(set)) {
      const into = (merged[Number(status)] ??= []);
      for (const code of codes) if (!into.includes(code)) into.push(code);
    }
  }
  return merged;
}

/** A secret is checked, and a client address that failed too often is refused before it (src/access/auth-throttle.ts). */
export const throttledCredential: Refusals = { 429: ['rate_limited'] };

/**
 * A bearer credential is asked for (its failures throttled), and it may lack the scope or role the route needs; a
 * signed-in user may still have to set up the second factor one of their workspaces requires (docs/people.md).
 */
export const needsCredential: Refusals = { 401: ['unauthorized'], 403: ['forbidden_scope', 'totp_setup_required'], ...throttledCredential };

/** Ingest's credentials (an API key, a site's public id): never a person's session, so never totp_setup_required. */
export const needsIngestCredential: Refusals = { 401: ['unauthorized'], 403: ['forbidden_scope'], ...throttledCredential };

/** A resource named in the path that is missing or belongs to another tenant (the same answer for both). */
export const namedInPath: Refusals = { 404: ['not_found'] };

/** A JSON body read by http/body.ts and checked against its schema. */
export const jsonBody: Refusals = { 400: ['invalid_json', 'invalid_payload'], 413: ['payload_too_large'], 415: ['unsupported_media_type'] };

/** Query parameters checked by http/validate.ts. */
export const queryParams: Refusals = { 400: ['invalid_param'] };
