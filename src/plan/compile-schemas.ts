// Compiles every event schema of a bundle once, with ajv's 2020-12 dialect in strict mode.
// The named export, not the default: under Node ESM the default import of this CommonJS module is module.exports,
// which TypeScript (NodeNext) types as the module namespace; `{ Ajv2020 }` is the class in Node, vitest and tsc alike.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ErrorDetail } from '../http/errors.ts';
import { escapePointerToken, type TrackingPlanBundle } from './bundle.ts';
import { planFormats } from './formats.ts';
import { findSubschema, isSchemaObject, locateCompileError } from './schema-walk.ts';

export type CompiledEvents = { ok: true; validators: Map<string, ValidateFunction> } | { ok: false; problems: ErrorDetail[] };

/**
 * One ajv instance per plan: strict, so an unknown keyword, a missing `type` under a type-specific keyword or an
 * unknown format fails the load instead of silently accepting everything. Union types such as ["string", "null"] are
 * fine; tuples need not repeat their length in minItems (strictTuples off); `required` may name properties declared
 * elsewhere, as in anyOf: [{ required: ["a"] }, { required: ["b"] }] (strictRequired off: findImpossibleRequired
 * catches the typos that matter).
 */
function createPlanAjv(): Ajv2020 {
  return new Ajv2020({
    allErrors: true,
    strict: true,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    formats: planFormats,
    // Validation never changes the event: its raw JSON is stored as received.
    useDefaults: false,
    coerceTypes: false,
    removeAdditional: false,
  });
}

/**
 * Compiles every event schema; problems are JSON Pointers into the bundle (e.g. /events/signup/properties/x/type).
 * @example const compiled = compileEventSchemas(bundle); if (compiled.ok) compiled.validators.get('signup')
 */
export function compileEventSchemas(bundle: TrackingPlanBundle): CompiledEvents {
  const ajv = createPlanAjv();
  const validators = new Map<string, ValidateFunction>();
  const problems: ErrorDetail[] = [];
  for (const [type, schema] of Object.entries(bundle.events)) {
    const base = `/events/${escapePointerToken(type)}`;
    try {
      // validateSchema itself throws for an unknown $schema dialect.
      if (!ajv.validateSchema(schema)) {
        problems.push(...toMetaSchemaProblems(ajv.errors ?? [], base));
        continue;
      }
      validators.set(type, ajv.compile(schema));
      problems.push(...findImpossibleRequired(schema).map((pointer) => ({ path: base + pointer, message: 'names a property that additionalProperties: false forbids, so no event can pass' })));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      problems.push({ path: base + locateCompileError(schema, message), message: toReadableCompileMessage(message) });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, validators };
}

/**
 * Meta-schema errors, one per schema location: with allErrors a bad `type` yields enum, type and anyOf errors for
 * the same place; the first specific one (not the anyOf/oneOf summary) says it best.
 */
function toMetaSchemaProblems(errors: ErrorObject[], base: string): ErrorDetail[] {
  const byPath = new Map<string, ErrorObject>();
  for (const error of errors) {
    const current = byPath.get(error.instancePath);
    if (!current || (isSummary(current) && !isSummary(error))) byPath.set(error.instancePath, error);
  }
  return [...byPath.values()].map((error) => ({ path: base + error.instancePath, message: error.message ?? 'is invalid' }));
}

function isSummary(error: ErrorObject): boolean {
  return error.keyword === 'anyOf' || error.keyword === 'oneOf';
}

/** ajv's strict-mode text without the location (the pointer says it) and with the mode named once. */
function toReadableCompileMessage(message: string): string {
  const strict = message.startsWith('strict mode: ');
  const text = message
    .replace(/^strict mode: /, '')
    .replace(/ (?:ignored in schema )?at (?:path )?"[^"]*"/, '')
    .replace(/ \(strict\w+\)$/, '');
  return strict ? `${text} (strict mode)` : text;
}

/**
 * Pointers to `required` entries that can never be met: the property is not declared, no pattern matches it and
 * additionalProperties is false. That is a typo ("pln" for "plan") that would reject every event of the type.
 */
function findImpossibleRequired(schema: unknown): string[] {
  const found: string[] = [];
  findSubschema(schema, (subschema, pointer) => {
    if (subschema.additionalProperties !== false || !Array.isArray(subschema.required)) return false;
    const declared = isSchemaObject(subschema.properties) ? subschema.properties : {};
    const patterns = Object.keys(isSchemaObject(subschema.patternProperties) ? subschema.patternProperties : {}).map((pattern) => new RegExp(pattern, 'u'));
    subschema.required.forEach((name, index) => {
      if (typeof name === 'string' && !Object.hasOwn(declared, name) && !patterns.some((pattern) => pattern.test(name))) found.push(`${pointer}/required/${index}`);
    });
    return false;
  });
  return found;
}
