// The two error envelopes `renderError` writes (src/http/errors.ts), as valibot schemas: published at GET /v1/schemas
// and referenced by every operation of GET /v1/openapi.json, so clients can tell a refusal from an answer.
import * as v from 'valibot';

/** One per-field problem: a JSON Pointer into the request (body, query or header) and what is wrong there. */
export const ErrorDetailAnswer = v.strictObject({ path: v.string(), message: v.string() });

/**
 * The structured envelope (V2 reports, events, ingest, the versioned contract).
 * @example { "error": { "code": "invalid_param", "message": "A query parameter is invalid", "details": [{ "path": "/limit", "message": "must be at most 200" }] } }
 */
export const StructuredErrorEnvelope = v.strictObject({
  error: v.strictObject({
    code: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*$/)),
    message: v.string(),
    details: v.optional(v.array(ErrorDetailAnswer)),
  }),
});

/**
 * The flat compatibility envelope (workspace endpoints but funnels, webhooks, attribution, ROI, spend, bridge).
 * Some refusals add fields of their own (ApiError's `extra`, e.g. the rows of a CSV refusal): other keys are allowed.
 * @example { "error": "slug_taken", "message": "The slug acme is taken" }
 */
export const FlatErrorEnvelope = v.looseObject({
  error: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*$/)),
  message: v.string(),
  details: v.optional(v.array(ErrorDetailAnswer)),
});
