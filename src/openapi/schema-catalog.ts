// The document of GET /v1/schemas: one standalone JSON Schema (draft 2020-12) per JSON answer, keyed by
// "METHOD /v1/path" (e.g. "GET /v1/sites/{siteId}/reports/summary-v2"), plus the two error envelopes.
import { type DescribedRoute, errorEnvelopeSchemas, type JsonObject } from './document.ts';
import { type JsonSchema, jsonSchemaDialect } from './json-schema.ts';
import { answerKeyOf } from './route-names.ts';

/**
 * Keys: "StructuredError", "FlatError", then one "METHOD /v1/path" per route with a JSON answer, in mount order.
 * @example buildSchemaCatalog(describeRoutes(registeredRoutesOf(app)))['GET /v1/healthz'] // { $schema, title, type: 'object', … }
 */
export function buildSchemaCatalog(routes: readonly DescribedRoute[]): Record<string, JsonObject> {
  const standalone = (title: string, schema: JsonObject | JsonSchema): JsonObject => ({ $schema: jsonSchemaDialect, title, ...schema });
  const catalog: Record<string, JsonObject> = {};
  for (const [name, schema] of Object.entries(errorEnvelopeSchemas())) catalog[name] = standalone(name, schema);
  for (const route of routes) {
    if (route.answer) catalog[answerKeyOf(route.spec)] = standalone(answerKeyOf(route.spec), route.answer);
  }
  return catalog;
}
