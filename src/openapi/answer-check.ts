// Checks one HTTP answer against an OpenAPI document of this server: finds the operation of method + path, picks the
// response of the status and validates a JSON body with ajv (2020-12). The test harness runs it on every answer, so
// the published schemas cannot drift from what the handlers return.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { mediaTypeOf } from '../http/content-type.ts';
import { planFormats } from '../plan/formats.ts';
import { errorSchemaNames, type JsonObject, type OpenApiDocument, type OpenApiOperation } from './document.ts';

export interface AnswerToCheck {
  method: string;
  /** The request path, with or without a query string. */
  path: string;
  status: number;
  contentType: string | null;
  /** The raw body text. */
  text: string;
}

export interface MatchedOperation {
  /** The templated path, e.g. /v1/sites/{siteId}/dlq. */
  template: string;
  operation: OpenApiOperation;
}

export interface AnswerChecker {
  /** The operation answering method + path (literal segments win over parameters), if any. */
  findOperation(method: string, path: string): MatchedOperation | undefined;
  /** Throws an AnswerMismatchError naming the route, the status and what does not match. */
  check(answer: AnswerToCheck): void;
}

export class AnswerMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AnswerMismatchError';
  }
}

interface CompiledPath {
  template: string;
  pattern: RegExp;
  literalSegments: number;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compilePath(template: string): CompiledPath {
  const segments = template.split('/');
  const pattern = segments.map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : escapeRegExp(segment))).join('/');
  return { template, pattern: new RegExp(`^${pattern}$`), literalSegments: segments.filter((segment) => !segment.startsWith('{')).length };
}

function formatAjvErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`).join('; ');
}

type ValidatorOf = (schema: JsonObject) => { name: string; validate: ValidateFunction };

/** Compiles (once each) the document's schemas, a $ref to a component resolved through the component's own id. */
function createValidators(document: OpenApiDocument): ValidatorOf {
  // Strict: an unknown keyword or format in a published schema is a bug of the document, not of the answer.
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, formats: planFormats });
  const validators = new Map<string, ValidateFunction>();
  // Components get absolute ids, so a schema that refers to one (a refusal narrows an envelope) compiles on its own.
  const componentPrefix = '#/components/schemas/';
  const componentId = (name: string) => `https://sightline.invalid/components/schemas/${encodeURIComponent(name)}`;
  for (const [name, schema] of Object.entries(document.components.schemas)) ajv.addSchema(schema, componentId(name));
  const withComponentIds = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(withComponentIds);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) =>
        key === '$ref' && typeof inner === 'string' && inner.startsWith(componentPrefix) ? [key, componentId(inner.slice(componentPrefix.length))] : [key, withComponentIds(inner)],
      ),
    );
  };
  // The component name of a schema that is a $ref, for caching and for messages.
  return (schema) => {
    const name = typeof schema.$ref === 'string' ? schema.$ref : JSON.stringify(schema);
    let validate = validators.get(name);
    if (!validate) {
      try {
        validate = ajv.compile(withComponentIds(schema) as JsonObject);
      } catch (error) {
        // A $ref to a component the document lacks, or a schema ajv refuses: the document is wrong.
        throw new AnswerMismatchError(`the OpenAPI document's schema ${name} does not compile: ${(error as Error).message}`);
      }
      validators.set(name, validate);
    }
    return { name, validate };
  };
}

/** A response that is a $ref to components.responses (schemas are resolved by ajv, through their ids). */
function resolveResponse(document: OpenApiDocument, value: JsonObject): JsonObject {
  const ref = value.$ref;
  if (typeof ref !== 'string') return value;
  const name = /^#\/components\/responses\/(.+)$/.exec(ref)?.[1];
  const target = name ? (document.components.responses[name] as JsonObject | undefined) : undefined;
  if (!target) throw new AnswerMismatchError(`the OpenAPI document has no ${ref}`);
  return target;
}

/** The operation a request reaches: of the paths that match, the one with the most literal segments. */
function createOperationFinder(document: OpenApiDocument): AnswerChecker['findOperation'] {
  const paths = Object.keys(document.paths).map(compilePath);
  return (method, path) => {
    // Appended, not resolved: a path starting with // is a path here, not a host. Dot segments go, as fetch does.
    const pathname = new URL(`http://answer.check${path}`).pathname;
    const key = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    let best: (MatchedOperation & { score: number }) | undefined;
    for (const candidate of paths) {
      const operation = document.paths[candidate.template]?.[key];
      if (!operation || !candidate.pattern.test(pathname)) continue;
      if (!best || candidate.literalSegments > best.score) best = { template: candidate.template, operation, score: candidate.literalSegments };
    }
    return best ? { template: best.template, operation: best.operation } : undefined;
  };
}

function validateJson(validatorOf: ValidatorOf, route: string, answer: AnswerToCheck, schema: JsonObject): void {
  const { name, validate } = validatorOf(schema);
  if (mediaTypeOf(answer.contentType ?? undefined) !== 'application/json') {
    throw new AnswerMismatchError(`${route} answered ${answer.status} with Content-Type ${answer.contentType ?? '(none)'}, not the JSON of ${name}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new AnswerMismatchError(`${route} answered ${answer.status} with a body that is not JSON (${name} expected): ${answer.text.slice(0, 200)}`);
  }
  if (!validate(body)) {
    throw new AnswerMismatchError(`${route} answered ${answer.status} with a body that does not match ${name}: ${formatAjvErrors(validate.errors)}; body: ${answer.text.slice(0, 500)}`);
  }
}

/**
 * @example const checker = createAnswerChecker(document); checker.check({ method: 'GET', path: '/healthz', status: 200, contentType: 'application/json', text: '{"status":"ok"}' });
 */
export function createAnswerChecker(document: OpenApiDocument): AnswerChecker {
  const validatorOf = createValidators(document);
  const findOperation = createOperationFinder(document);
  const check = (answer: AnswerToCheck): void => {
    const method = answer.method.toUpperCase();
    const matched = findOperation(method, answer.path);
    if (!matched) {
      // Unknown paths and methods are answered by the router itself, in the structured envelope.
      const route = `${method} ${answer.path} (no such route)`;
      if (answer.status < 400) throw new AnswerMismatchError(`${route} answered ${answer.status}, but no operation of the OpenAPI document matches it`);
      validateJson(validatorOf, route, answer, { $ref: `#/components/schemas/${errorSchemaNames.structured}` });
      return;
    }
    const route = `${method} ${matched.template}`;
    const { responses } = matched.operation;
    const declared = responses[String(answer.status)] ?? responses[`${Math.floor(answer.status / 100)}XX`] ?? responses.default;
    if (!declared) throw new AnswerMismatchError(`${route} answered ${answer.status}, a status its operation does not document (${Object.keys(responses).join(', ')})`);
    if (method === 'HEAD') return;
    const content = resolveResponse(document, declared).content as Record<string, { schema?: JsonObject }> | undefined;
    if (!content) {
      if (answer.text !== '') throw new AnswerMismatchError(`${route} answered ${answer.status} with a body, but the document says it has none`);
      return;
    }
    const json = content['application/json'];
    if (json?.schema) return validateJson(validatorOf, route, answer, json.schema);
    // No schema published: only the media type can be checked.
    const mediaTypes = Object.keys(content).map((type) => mediaTypeOf(type));
    if (!mediaTypes.includes(mediaTypeOf(answer.contentType ?? undefined))) {
      throw new AnswerMismatchError(`${route} answered ${answer.status} with Content-Type ${answer.contentType ?? '(none)'}; documented: ${mediaTypes.join(', ')}`);
    }
  };

  return { findOperation, check };
}
