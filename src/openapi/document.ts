// Builds the OpenAPI 3.1 document of GET /v1/openapi.json from the registered routes: every route at /v1<path> and,
// unless it is versioned only, at its unprefixed alias; answers, bodies and both error envelopes in components.
import type * as v from 'valibot';
import { FlatErrorEnvelope, StructuredErrorEnvelope } from '../http/error-envelopes.ts';
import type { EnvelopeFamily } from '../http/errors.ts';
import { deprecationHeaders, envelopeFamilyOf, type RouteSpec } from '../http/routes.ts';
import { type JsonSchema, jsonSchemaDialect, toAnswerJsonSchema, toBodyJsonSchema } from './json-schema.ts';
import { canonicalPathOf, operationIdOf, pathParameterNames, toTemplatePath } from './route-names.ts';

export type JsonObject = { [key: string]: unknown };

export type OpenApiOperation = {
  operationId: string;
  summary?: string;
  description?: string;
  deprecated?: true;
  parameters: JsonObject[];
  requestBody?: JsonObject;
  responses: Record<string, JsonObject>;
  security?: Record<string, string[]>[];
};

export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: 'Sightline'; version: string; description: string };
  jsonSchemaDialect: typeof jsonSchemaDialect;
  servers: { url: string; description: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonObject>; responses: Record<string, JsonObject>; securitySchemes: Record<string, JsonObject> };
};

/** The component names of the two envelopes (also their keys at GET /v1/schemas). */
export const errorSchemaNames = { structured: 'StructuredError', flat: 'FlatError' } as const;

/** A route with its converted schemas: what both published documents are made of. */
export interface DescribedRoute {
  spec: RouteSpec;
  operationId: string;
  answer?: JsonSchema;
  body?: JsonSchema;
}

/**
 * Converted schemas by schema object: route specs are made anew by every app, but their schemas are module constants,
 * and converting them all took ~30 ms of CPU per app at its first document (every test server builds one). Frozen,
 * as the apps share them: the documents spread them into new objects and change none.
 */
const converted = { answer: new WeakMap<object, JsonSchema>(), body: new WeakMap<object, JsonSchema>() };
function convertedOnce(kind: keyof typeof converted, schema: v.GenericSchema, convert: (schema: v.GenericSchema) => JsonSchema): JsonSchema {
  let json = converted[kind].get(schema);
  if (!json) converted[kind].set(schema, (json = deepFreeze(convert(schema))));
  return json;
}
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/** Converts every route's answer and body once; two routes may not share an operationId. */
export function describeRoutes(routes: readonly RouteSpec[]): DescribedRoute[] {
  const seen = new Map<string, RouteSpec>();
  return routes.map((spec) => {
    const operationId = operationIdOf(spec);
    const other = seen.get(operationId);
    if (other) throw new Error(`${spec.method} ${spec.path} and ${other.method} ${other.path} share the operationId ${operationId}`);
    seen.set(operationId, spec);
    try {
      return {
        spec,
        operationId,
        ...(spec.answer ? { answer: convertedOnce('answer', spec.answer, toAnswerJsonSchema) } : {}),
        ...(spec.body ? { body: convertedOnce('body', spec.body, toBodyJsonSchema) } : {}),
      };
    } catch (error) {
      throw new Error(`${spec.method} ${spec.path}: ${(error as Error).message}`, { cause: error });
    }
  });
}

/** The envelope schemas, for components and for GET /v1/schemas. */
export function errorEnvelopeSchemas(): Record<string, JsonObject> {
  return {
    [errorSchemaNames.structured]: { ...toAnswerJsonSchema(StructuredErrorEnvelope) },
    [errorSchemaNames.flat]: { ...toAnswerJsonSchema(FlatErrorEnvelope) },
  };
}

const componentName = (operationId: string, suffix: string) => operationId[0]!.toUpperCase() + operationId.slice(1) + suffix;
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function successResponse(route: DescribedRoute): JsonObject {
  const { spec } = route;
  const headers = spec.deprecation
    ? Object.fromEntries(Object.keys(deprecationHeaders(spec.deprecation)).map((name) => [name, { description: `RFC 8594 ${name} header`, schema: { type: 'string' } }]))
    : undefined;
  const base = { ...(headers ? { headers } : {}) };
  if (spec.produces) {
    const mediaTypes = typeof spec.produces === 'string' ? [spec.produces] : spec.produces;
    return { ...base, description: spec.summary ?? 'Success', content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: { type: 'string' } }])) };
  }
  if (route.answer) return { ...base, description: spec.summary ?? 'Success', content: { 'application/json': { schema: schemaRef(componentName(route.operationId, 'Answer')) } } };
  if ((spec.status ?? 200) === 204) return { ...base, description: 'No content' };
  // JSON without a published schema (only routes a test adds: the suite requires an answer of every app route).
  return { ...base, description: 'Success (this answer has no published schema)', content: { 'application/json': {} } };
}

const refusalTitles: Record<number, string> = {
  400: 'The request is invalid',
  401: 'No valid credential',
  403: 'The credential lacks the scope or role this needs',
  404: 'Not found (also for what belongs to another workspace)',
  409: 'Conflicts with what exists',
  413: 'The body is too large (the connection is then closed)',
  415: 'Unsupported Content-Type, a charset other than UTF-8, or a Content-Encoding',
  429: 'Too many requests; retry after Retry-After seconds',
  502: 'An upstream step refused or was unavailable',
  503: 'Overloaded, shutting down, or (with ClickHouse) the analytics store unreachable; retry after Retry-After seconds',
};

/** One declared refusal status: the envelope of the route family with its error code limited to the declared ones. */
function refusalResponse(family: EnvelopeFamily, status: number, codes: readonly string[]): JsonObject {
  const code = { enum: [...codes] };
  const narrowed = family === 'structured' ? { type: 'object', properties: { error: { type: 'object', properties: { code } } } } : { type: 'object', properties: { error: code } };
  return {
    description: `${refusalTitles[status] ?? 'Refused'}: ${codes.join(', ')}`,
    ...(status === 429 || status === 503 ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'string' } } } } : {}),
    content: { 'application/json': { schema: { allOf: [schemaRef(errorSchemaNames[family]), narrowed] } } },
  };
}

function toOperation(route: DescribedRoute, alias: boolean): OpenApiOperation {
  const { spec } = route;
  const family = spec.envelope ?? envelopeFamilyOf(spec.path);
  const errorResponse = { $ref: `#/components/responses/${errorSchemaNames[family]}` };
  const canonical = `${spec.method} ${canonicalPathOf(spec)}`;
  const notes = [
    alias ? `Alias of ${canonical}, kept for older clients.` : undefined,
    spec.deprecation ? `Deprecated; sunset ${spec.deprecation.sunset.toISOString()} (${spec.deprecation.link}).` : undefined,
  ].filter((note) => note !== undefined);
  return {
    operationId: alias ? `${route.operationId}Unprefixed` : route.operationId,
    ...(spec.summary ? { summary: spec.summary } : {}),
    ...(notes.length > 0 ? { description: notes.join(' ') } : {}),
    ...(spec.deprecation ? { deprecated: true as const } : {}),
    parameters: [
      ...pathParameterNames(spec.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...(spec.query ?? []).map((query) => ({
        name: query.name,
        in: 'query',
        description: query.description,
        required: query.required ?? false,
        schema: query.schema ?? { type: 'string' },
      })),
    ],
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaRef(componentName(route.operationId, 'Body')) } } } } : {}),
    responses: {
      [String(spec.status ?? 200)]: successResponse(route),
      ...Object.fromEntries(
        Object.entries(spec.refusals).map(([status, codes]) => [status, refusalResponse(family, Number(status), codes)]),
      ),
      // Any route can fail unexpectedly (500 internal_error); that needs no declaration.
      '5XX': errorResponse,
    },
    ...(spec.auth === 'none' ? { security: [] } : {}),
  };
}

/**
 * @example const document = buildOpenApiDocument(describeRoutes(registeredRoutesOf(app)), '0.1.0');
 */
export function buildOpenApiDocument(routes: readonly DescribedRoute[], version: string): OpenApiDocument {
  const schemas: Record<string, JsonObject> = errorEnvelopeSchemas();
  const paths: OpenApiDocument['paths'] = {};
  const addOperation = (path: string, method: string, operation: OpenApiOperation) => {
    const item = (paths[path] ??= {});
    if (item[method]) throw new Error(`two routes answer ${method.toUpperCase()} ${path}`);
    item[method] = operation;
  };
  for (const route of routes) {
    if (route.answer) schemas[componentName(route.operationId, 'Answer')] = { ...route.answer };
    if (route.body) schemas[componentName(route.operationId, 'Body')] = { ...route.body };
    const method = route.spec.method.toLowerCase();
    addOperation(canonicalPathOf(route.spec), method, toOperation(route, false));
    if (!route.spec.versionedOnly) addOperation(toTemplatePath(route.spec.path), method, toOperation(route, true));
  }
  const errorResponse = (name: string, description: string) => ({ description, content: { 'application/json': { schema: schemaRef(name) } } });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sightline',
      version,
      description:
        'Self-hosted web analytics. Every endpoint is served at /v1<path>; older ones also at their unprefixed path (an alias). ' +
        'Answers match the schemas below; the same schemas, keyed by "METHOD /v1/path", are at GET /v1/schemas.',
    },
    jsonSchemaDialect,
    servers: [{ url: '/', description: 'This server' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas,
      responses: {
        [errorSchemaNames.structured]: errorResponse(errorSchemaNames.structured, 'A refusal in the structured envelope: { error: { code, message, details? } }'),
        [errorSchemaNames.flat]: errorResponse(errorSchemaNames.flat, 'A refusal in the flat envelope: { error, message, details? }'),
      },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <credential>: the admin token, an API key (sk_<workspace slug>_<32 characters>), or, on ' +
            'POST /events while REQUIRE_API_KEY is none, the site id.',
        },
      },
    },
  };
}
