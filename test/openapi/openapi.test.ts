// GET /v1/openapi.json and GET /v1/schemas: the documents cover every route, hold together, and the answer check the
// harness runs on every request really fails on an answer that drifts from its schema.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import packageJson from '../../package.json' with { type: 'json' };
import { addRoute, registeredRoutesOf, type RouteSpec } from '../../src/http/routes.ts';
import { AnswerMismatchError, createAnswerChecker } from '../../src/openapi/answer-check.ts';
import type { JsonObject, OpenApiDocument } from '../../src/openapi/document.ts';
import { toAnswerJsonSchema } from '../../src/openapi/json-schema.ts';
import { answerKeyOf, toTemplatePath } from '../../src/openapi/route-names.ts';
import { planFormats } from '../../src/plan/formats.ts';
import { startTestServer, type TestServer } from '../_setup.ts';

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let server: TestServer;
let document: OpenApiDocument;
let catalog: Record<string, JsonObject>;
/** The routes this app serves. */
let appRoutes: RouteSpec[];

beforeAll(async () => {
  server = await startTestServer();
  appRoutes = [...registeredRoutesOf(server.app.h3)];
  document = (await server.request('GET', '/v1/openapi.json', { token: null })).body;
  catalog = (await server.request('GET', '/v1/schemas', { token: null })).body;
});
afterAll(() => server.close());

function operations(): { path: string; method: string; operation: JsonObject }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation: operation as JsonObject })),
  );
}

/** Every $ref anywhere in `value`. */
function collectRefs(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, into);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') into.push(child);
      else collectRefs(child, into);
    }
  }
  return into;
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, token) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[token] : undefined), root);
}

describe('GET /v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document of this server, public, with relative servers and a bearer scheme', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: 'Sightline', version: packageJson.version });
    expect(document.servers.every((entry) => entry.url.startsWith('/'))).toBe(true);
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toEqual([{ bearer: [] }]);
    const unauthenticated = await server.request('GET', '/v1/openapi.json', { token: null });
    expect(unauthenticated.status).toBe(200);
    expect(unauthenticated.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('has well-formed operations: unique operationIds, declared path parameters, success and error responses', () => {
    const ids = new Set<string>();
    for (const { path, method, operation } of operations()) {
      expect(methods).toContain(method);
      expect(path.startsWith('/')).toBe(true);
      const id = operation.operationId as string;
      expect(ids.has(id), `operationId ${id} repeated`).toBe(false);
      ids.add(id);
      const parameters = operation.parameters as { name: string; in: string; required: boolean }[];
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      expect(parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name), `${method} ${path}`).toEqual(templated);
      expect(parameters.filter((parameter) => parameter.in === 'path').every((parameter) => parameter.required)).toBe(true);
      const keys = new Set(parameters.map((parameter) => `${parameter.in}:${parameter.name}`));
      expect(keys.size, `${method} ${path} repeats a parameter`).toBe(parameters.length);
      const responses = operation.responses as Record<string, JsonObject>;
      expect(Object.keys(responses).filter((status) => /^[23]\d\d$/.test(status)), `${method} ${path}`).toHaveLength(1);
      // Refusals are declared status by status; only unexpected failures share one 5XX answer.
      expect(responses['4XX'], `${method} ${path}`).toBeUndefined();
      expect(responses['5XX']).toBeDefined();
      for (const status of Object.keys(responses).filter((key) => /^[45]\d\d$/.test(key))) {
        const schema = (responses[status]!.content as Record<string, { schema: { allOf: JsonObject[] } }>)['application/json']!.schema;
        expect(schema.allOf[0]!.$ref, `${method} ${path} ${status}`).toMatch(/^#\/components\/schemas\/(Structured|Flat)Error$/);
      }
      for (const response of Object.values(responses)) expect(response.$ref ?? response.description, `${method} ${path}`).toBeTruthy();
    }
  });

  it('resolves every $ref', () => {
    const refs = collectRefs(document);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(resolvePointer(document, ref), ref).toBeDefined();
  });

  it('compiles every component schema as JSON Schema 2020-12 (strict: no unknown keyword or format)', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, formats: planFormats });
    for (const [name, schema] of Object.entries(document.components.schemas)) expect(() => ajv.compile(schema), name).not.toThrow();
  });

  it('documents every registered route at /v1 and, unless versioned only, at its unprefixed alias; nothing else', () => {
    const expected = new Set<string>();
    for (const route of appRoutes) {
      const method = route.method.toLowerCase();
      expected.add(`${method} ${toTemplatePath(`/v1${route.path}`)}`);
      if (!route.versionedOnly) expected.add(`${method} ${toTemplatePath(route.path)}`);
    }
    const documented = new Set(operations().map(({ path, method }) => `${method} ${path}`));
    expect([...documented].sort()).toEqual([...expected].sort());
    expect(documented.has('get /v1/schemas') && documented.has('get /v1/openapi.json')).toBe(true);
    expect(documented.has('get /schemas') || documented.has('get /openapi.json')).toBe(false);
  });

  it('documents exactly what the router serves (no route added past addRoute)', () => {
    // h3's own route table (internal, but typed): every method and path the app answers.
    const served = server.app.h3['~routes'].map((route) => `${(route.method ?? '').toLowerCase()} ${toTemplatePath(route.route ?? '')}`);
    const documented = operations().map(({ path, method }) => `${method} ${path}`);
    expect(served.sort()).toEqual(documented.sort());
  });

  it('gives every route that answers JSON an answer schema (non-JSON routes say what they produce, 204 has no content)', () => {
    const undocumented = appRoutes.filter((route) => !route.answer && !route.produces && route.status !== 204);
    expect(undocumented.map((route) => `${route.method} ${route.path}`)).toEqual([]);
    for (const route of appRoutes.filter((candidate) => candidate.answer)) {
      const operation = document.paths[toTemplatePath(`/v1${route.path}`)]![route.method.toLowerCase()]!;
      const success = operation.responses[String(route.status ?? 200)] as { content: Record<string, { schema: { $ref: string } }> };
      expect(success.content['application/json']!.schema.$ref).toMatch(/^#\/components\/schemas\/\w+Answer$/);
    }
  });

  it('points error responses at the envelope of the route family', () => {
    const refusalEnvelopeOf = (path: string, method: string, status: string) =>
      ((document.paths[path]![method]!.responses[status]!.content as Record<string, { schema: { allOf: { $ref: string }[] } }>)['application/json']!.schema.allOf[0]!.$ref);
    const failureOf = (path: string, method: string) => document.paths[path]![method]!.responses['5XX']!.$ref;
    expect(refusalEnvelopeOf('/v1/workspaces', 'get', '401')).toBe('#/components/schemas/FlatError');
    expect(refusalEnvelopeOf('/workspaces/{slug}/keys', 'post', '400')).toBe('#/components/schemas/FlatError');
    expect(refusalEnvelopeOf('/v1/sites/{siteId}/reports/summary-v2', 'get', '400')).toBe('#/components/schemas/StructuredError');
    expect(refusalEnvelopeOf('/events', 'post', '413')).toBe('#/components/schemas/StructuredError');
    expect(failureOf('/v1/workspaces', 'get')).toBe('#/components/responses/FlatError');
    expect(failureOf('/v1/healthz', 'get')).toBe('#/components/responses/StructuredError');
  });

  it("lists each route's refusals with their error codes, and Retry-After where clients must wait", () => {
    const codesOf = (path: string, method: string) =>
      Object.fromEntries(
        Object.entries(document.paths[path]![method]!.responses)
          .filter(([status]) => /^[45]\d\d$/.test(status))
          .map(([status, response]) => {
            const narrowed = (response.content as Record<string, { schema: { allOf: JsonObject[] } }>)['application/json']!.schema.allOf[1]!;
            const properties = narrowed.properties as { error: { enum?: string[]; properties?: { code: { enum: string[] } } } };
            return [status, properties.error.enum ?? properties.error.properties!.code.enum];
          }),
      );
    expect(codesOf('/v1/events', 'post')).toEqual({
      400: ['invalid_json', 'invalid_payload', 'schema_validation_failed'],
      401: ['unauthorized'],
      403: ['forbidden_scope'],
      404: ['not_found'],
      413: ['payload_too_large'],
      415: ['unsupported_media_type'],
      429: ['rate_limited'],
      503: ['overloaded'],
    });
    expect(codesOf('/v1/workspaces', 'post')).toMatchObject({ 409: ['slug_taken'] });
    // People (docs/people.md): invitations, and the second factor a workspace may require of its members.
    expect(codesOf('/v1/invitations/accept', 'post')).toEqual({
      400: ['invalid_json', 'invalid_payload'],
      401: ['sign_in_required'],
      403: ['wrong_account'],
      404: ['not_found'],
      409: ['already_member', 'email_taken'],
      413: ['payload_too_large'],
      415: ['unsupported_media_type'],
      429: ['rate_limited'],
    });
    expect(document.paths['/v1/invitations/accept']!.post!.security).toEqual([]);
    expect(codesOf('/v1/workspaces/{slug}/invitations', 'post')).toMatchObject({ 403: ['forbidden_scope', 'totp_setup_required'], 409: ['already_member'] });
    expect(Object.keys(document.paths['/v1/workspaces/{slug}/invitations/{id}']!.delete!.responses)).toContain('204');
    expect(document.paths['/v1/workspaces/{slug}/invitations']!.get).toBeDefined();
    expect(document.paths['/workspaces/{slug}/invitations']).toBeUndefined();
    expect(codesOf('/v1/sites/{siteId}/users/{userId}/timeline', 'get')[404]).toEqual(['not_found', 'user_not_found']);
    expect(codesOf('/v1/sites/{siteId}/reports/pages-v2', 'get')[400]).toEqual([
      'invalid_param',
      'invalid_date_param',
      'invalid_date_range',
      'range_too_large',
      'unsupported_timezone',
      'unsupported_bots',
      'too_many_values',
    ]);
    expect(codesOf('/v1/healthz', 'get')).toEqual({});
    expect(document.paths['/v1/events']!.post!.responses['429']!.headers).toHaveProperty('Retry-After');
    expect(document.paths['/v1/sites/{siteId}/events/stream-v2']!.get!.responses['429']!.headers).toHaveProperty('Retry-After');
    expect(document.paths['/v1/events']!.post!.responses['400']!.headers).toBeUndefined();
  });

  it('describes parameters, bodies, statuses and public routes from the route specs', () => {
    const summary = document.paths['/v1/sites/{siteId}/reports/summary-v2']!.get!;
    expect(summary.parameters).toContainEqual(expect.objectContaining({ name: 'from', in: 'query', required: true }));
    const createSite = document.paths['/workspaces/{slug}/sites']!.post!;
    expect(createSite.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/PostWorkspacesBySlugSitesBody' } } } });
    expect(Object.keys(createSite.responses)).toContain('201');
    expect(document.components.schemas.PostWorkspacesBySlugSitesBody).toMatchObject({ type: 'object', required: ['id', 'name'] });
    expect(Object.keys(document.paths['/v1/workspaces/{slug}/sites/{id}']!.delete!.responses)).toContain('204');
    expect(document.paths['/v1/metrics']!.get!.responses['200']!.content).toEqual({ 'text/plain; version=0.0.4': { schema: { type: 'string' } } });
    expect(document.paths['/healthz']!.get!.security).toEqual([]);
    expect(document.paths['/v1/workspaces']!.get!.security).toBeUndefined();
    expect(document.paths['/workspaces']!.get!.description).toBe('Alias of GET /v1/workspaces, kept for older clients.');
  });

  it('serves every documented operation (no "No such route")', async () => {
    for (const { path, method, operation } of operations()) {
      const success = Object.entries(operation.responses as Record<string, JsonObject>).find(([status]) => /^[23]/.test(status))![1];
      if (Object.keys((success.content as object | undefined) ?? {}).some((type) => type.startsWith('text/event-stream'))) continue;
      const url = path.replaceAll(/\{[^}]+\}/g, 'none');
      const response = await server.request(method.toUpperCase(), url);
      expect(response.body?.error?.message === 'No such route', `${method} ${path}`).toBe(false);
    }
  });
});

describe('GET /v1/schemas', () => {
  it('holds one standalone 2020-12 schema per JSON answer, keyed "METHOD /v1/path", and the two envelopes', () => {
    const expected = ['StructuredError', 'FlatError', ...appRoutes.filter((route) => route.answer).map(answerKeyOf)];
    expect(Object.keys(catalog).sort()).toEqual(expected.sort());
    expect(catalog['GET /v1/sites/{siteId}/reports/summary-v2']).toBeDefined();
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, formats: planFormats });
    for (const [key, schema] of Object.entries(catalog)) {
      expect(schema.$schema, key).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(() => ajv.compile(schema), key).not.toThrow();
    }
  });

  it('matches the components of the OpenAPI document', () => {
    for (const route of appRoutes.filter((candidate) => candidate.answer)) {
      const operation = document.paths[toTemplatePath(`/v1${route.path}`)]![route.method.toLowerCase()]!;
      const ref = (operation.responses[String(route.status ?? 200)] as { content: Record<string, { schema: { $ref: string } }> }).content['application/json']!.schema.$ref;
      const { $schema: _dialect, title: _title, ...schema } = catalog[answerKeyOf(route)]!;
      expect(schema, answerKeyOf(route)).toEqual(resolvePointer(document, ref));
    }
    const { $schema: _dialect, title: _title, ...structured } = catalog.StructuredError!;
    expect(structured).toEqual(document.components.schemas.StructuredError);
  });

  it('exists only under /v1', async () => {
    for (const path of ['/schemas', '/openapi.json']) {
      const response = await server.request('GET', path, { token: null });
      expect(response.status).toBe(404);
    }
  });

  it('lets a client validate an answer with it', async () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, formats: planFormats });
    const validate = ajv.compile(catalog['GET /v1/healthz']!);
    expect(validate((await server.request('GET', '/v1/healthz')).body)).toBe(true);
    expect(validate({ status: 'ok', extra: 1 })).toBe(false);
  });
});

describe('the answer check the harness runs on every request', () => {
  const json = 'application/json; charset=utf-8';

  it('accepts the real answers (this very file went through it)', () => {
    expect(() => server.answers.check({ method: 'GET', path: '/healthz?x=1', status: 200, contentType: json, text: '{"status":"ok"}' })).not.toThrow();
    expect(() => server.answers.check({ method: 'GET', path: '/nope', status: 404, contentType: json, text: '{"error":{"code":"not_found","message":"No such route"}}' })).not.toThrow();
  });

  it.each([
    ['a wrong success body', { method: 'GET', path: '/v1/healthz', status: 200, contentType: json, text: '{"status":"fine"}' }, /GET \/v1\/healthz answered 200 .*HealthzAnswer.*\/status/],
    ['an extra field', { method: 'GET', path: '/healthz', status: 200, contentType: json, text: '{"status":"ok","x":1}' }, /GET \/healthz answered 200 .*must NOT have additional properties/],
    ['the flat envelope on a structured route', { method: 'GET', path: '/v1/sites/s1/dlq', status: 404, contentType: json, text: '{"error":"not_found","message":"Not found"}' }, /GET \/v1\/sites\/\{siteId\}\/dlq answered 404 .*StructuredError/],
    ['the structured envelope on a flat route', { method: 'GET', path: '/workspaces/acme', status: 404, contentType: json, text: '{"error":{"code":"not_found","message":"Not found"}}' }, /GET \/workspaces\/\{slug\} answered 404 .*FlatError/],
    ['an undocumented success status', { method: 'POST', path: '/v1/workspaces', status: 200, contentType: json, text: '{}' }, /answered 200, a status its operation does not document/],
    ['a body where none is documented', { method: 'DELETE', path: '/workspaces/a/sites/b', status: 204, contentType: null, text: 'x' }, /the document says it has none/],
    ['success on a route the document lacks', { method: 'GET', path: '/v1/undocumented', status: 200, contentType: json, text: '{}' }, /no operation of the OpenAPI document matches/],
    ['a non-JSON answer where JSON is documented', { method: 'GET', path: '/v1/healthz', status: 200, contentType: 'text/plain', text: 'ok' }, /Content-Type text\/plain/],
    ['a refusal status the route does not declare', { method: 'GET', path: '/v1/healthz', status: 401, contentType: json, text: '{"error":{"code":"unauthorized","message":"x"}}' }, /a status its operation does not document/],
    [
      'a refusal code the route does not declare',
      { method: 'POST', path: '/v1/workspaces', status: 409, contentType: json, text: '{"error":"site_id_taken","message":"x"}' },
      /answered 409 with a body that does not match .*must be equal to one of the allowed values/,
    ],
    ['another media type than documented', { method: 'GET', path: '/metrics', status: 200, contentType: 'application/json', text: '{}' }, /documented: text\/plain/],
  ])('fails on %s', (_name, answer, message) => {
    expect(() => server.answers.check(answer)).toThrow(AnswerMismatchError);
    expect(() => server.answers.check(answer)).toThrow(message);
  });

  it('names a refusal schema that refers to a component the document lacks', () => {
    const broken = structuredClone(document);
    const refused = broken.paths['/v1/workspaces']!.get!.responses['401']!.content as Record<string, { schema: { allOf: JsonObject[] } }>;
    refused['application/json']!.schema.allOf[0] = { $ref: '#/components/schemas/Missing' };
    const answer = { method: 'GET', path: '/v1/workspaces', status: 401, contentType: 'application/json', text: '{"error":"unauthorized","message":"x"}' };
    expect(() => createAnswerChecker(broken).check(answer)).toThrow(AnswerMismatchError);
    expect(() => createAnswerChecker(broken).check(answer)).toThrow(/schema .* does not compile: .*Missing/);
  });

  it('makes a request fail when a handler drifts from its answer schema', async () => {
    const drifting = await startTestServer({
      extend: (app) => {
        addRoute(app, {
          method: 'GET',
          path: '/test/drift',
          refusals: {},
          answer: v.strictObject({ count: v.pipe(v.number(), v.integer()) }),
          // The type says count is a number; the handler sends a string anyway.
          handler: () => JSON.parse('{"count":"3"}') as { count: number },
        });
        addRoute(app, {
          method: 'GET',
          path: '/test/old',
          refusals: {},
          deprecation: { announced: new Date('2026-01-01T00:00:00Z'), sunset: new Date('2027-01-02T00:00:00Z'), link: 'https://docs.example/migrate' },
          answer: v.strictObject({ ok: v.boolean() }),
          handler: () => ({ ok: true }),
        });
      },
    });
    try {
      await expect(drifting.request('GET', '/v1/test/drift')).rejects.toThrow(/GET \/v1\/test\/drift answered 200 with a body that does not match .*\/count must be integer/);
      expect((await drifting.request('GET', '/test/old')).status).toBe(200);
      const extended: OpenApiDocument = (await drifting.request('GET', '/v1/openapi.json')).body;
      expect(extended.paths['/test/old']!.get!.deprecated).toBe(true);
      expect(extended.paths['/v1/test/old']!.get!.deprecated).toBe(true);
      expect(extended.paths['/v1/test/old']!.get!.responses['200']!.headers).toHaveProperty('sunset');
      expect(document.paths['/v1/test/old']).toBeUndefined();
    } finally {
      await drifting.close();
    }
  });

  it('refuses the opt-out on a request that matches a route', async () => {
    await expect(server.request('GET', '/v1/healthz', { unroutable: true })).rejects.toThrow(/is documented as \/v1\/healthz/);
  });
});

describe('conversion to JSON Schema', () => {
  it('keeps pipes, strict objects, nullable, picklist, literal, union and record', () => {
    const schema = toAnswerJsonSchema(
      v.strictObject({
        at: v.pipe(v.string(), v.isoTimestamp()),
        n: v.pipe(v.number(), v.integer(), v.minValue(0)),
        code: v.pipe(v.string(), v.regex(/^[A-Z]{3}$/)),
        maybe: v.nullable(v.string()),
        kind: v.picklist(['a', 'b']),
        fixed: v.literal('UTC'),
        either: v.union([v.string(), v.array(v.string())]),
        map: v.record(v.string(), v.number()),
      }),
    );
    expect(schema).toEqual({
      type: 'object',
      properties: {
        at: { type: 'string', format: 'date-time' },
        n: { type: 'integer', minimum: 0 },
        code: { type: 'string', pattern: '^[A-Z]{3}$' },
        maybe: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        kind: { type: 'string', enum: ['a', 'b'] },
        fixed: { const: 'UTC' },
        either: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
        map: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: { type: 'number' } },
      },
      required: ['at', 'n', 'code', 'maybe', 'kind', 'fixed', 'either', 'map'],
      additionalProperties: false,
    });
  });

  it('refuses an answer schema it cannot express rather than publishing a looser one', () => {
    expect(() => toAnswerJsonSchema(v.pipe(v.string(), v.check((text) => text.length % 2 === 0)))).toThrow(/check/);
  });
});
