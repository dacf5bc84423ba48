// GET /v1/schemas and GET /v1/openapi.json: the JSON Schemas of every answer and the OpenAPI 3.1 document, built
// from the routes registered before this mount (createApp mounts it last) on the first request, then kept.
import type { H3 } from 'h3';
import packageJson from '../../package.json' with { type: 'json' };
import type { AppContext } from '../context.ts';
import { addRoute, registeredRoutesOf, type RouteSpec } from '../http/routes.ts';
import { OpenApiDocumentAnswer, SchemaCatalogAnswer } from './answers.ts';
import { buildOpenApiDocument, type DescribedRoute, describeRoutes, type JsonObject, type OpenApiDocument } from './document.ts';
import { buildSchemaCatalog } from './schema-catalog.ts';

/**
 * Mount after every other domain (and after CreateAppOptions.extend): the documents cover the routes registered
 * up to and including these two.
 * @example mountOpenApi(h3, context); // last line of the mounts in createApp
 */
export function mountOpenApi(app: H3, _context: AppContext): void {
  addRoute(app, {
    method: 'GET',
    path: '/schemas',
    refusals: {},
    versionedOnly: true,
    auth: 'none',
    summary: 'JSON Schemas (draft 2020-12) of every JSON answer, keyed by "METHOD /v1/path", and of both error envelopes',
    answer: SchemaCatalogAnswer,
    handler: () => documents().catalog,
  });
  addRoute(app, {
    method: 'GET',
    path: '/openapi.json',
    refusals: {},
    versionedOnly: true,
    auth: 'none',
    summary: 'The OpenAPI 3.1 document of this server',
    answer: OpenApiDocumentAnswer,
    handler: () => documents().openapi,
  });
  // The app's routes up to now: those mounted before this (every domain's, and a test's own).
  const routes: readonly RouteSpec[] = [...registeredRoutesOf(app)];
  let built: { openapi: OpenApiDocument; catalog: Record<string, JsonObject> } | undefined;
  const documents = () => {
    if (!built) {
      const described: DescribedRoute[] = describeRoutes(routes);
      built = { openapi: buildOpenApiDocument(described, packageJson.version), catalog: buildSchemaCatalog(described) };
    }
    return built;
  };
}
