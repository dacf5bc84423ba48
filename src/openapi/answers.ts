// The answer schemas of GET /v1/schemas and GET /v1/openapi.json themselves (both are published in the documents
// they describe). They check the outline; the content is generated from the routes.
import * as v from 'valibot';
import { jsonSchemaDialect } from './json-schema.ts';

const JsonObject = v.record(v.string(), v.unknown());
const HttpMethodKey = v.pipe(v.string(), v.regex(/^(get|put|post|delete|options|head|patch|trace)$/));

export const SchemaCatalogAnswer = v.record(v.string(), JsonObject);

export const OpenApiDocumentAnswer = v.strictObject({
  openapi: v.literal('3.1.0'),
  info: v.strictObject({ title: v.literal('Sightline'), version: v.string(), description: v.string() }),
  jsonSchemaDialect: v.literal(jsonSchemaDialect),
  servers: v.array(v.strictObject({ url: v.string(), description: v.string() })),
  security: v.array(v.record(v.string(), v.array(v.string()))),
  paths: v.record(v.pipe(v.string(), v.startsWith('/')), v.record(HttpMethodKey, JsonObject)),
  components: v.strictObject({ schemas: v.record(v.string(), JsonObject), responses: v.record(v.string(), JsonObject), securitySchemes: v.record(v.string(), JsonObject) }),
});
