// @ts-check
// A small JSON Schema (2020-12) checker for the subset GET /v1/schemas publishes: type, properties, required,
// additionalProperties, items, enum, const, anyOf/oneOf/allOf, pattern, numeric and length bounds. It answers the
// first mismatch's path, or null. Unknown keywords are ignored (they only ever narrow what is accepted).
/** @import { JsonSchema } from './types.js' */

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** @type {Record<string, (value: unknown) => boolean>} */
const typeChecks = {
  object: isObject,
  array: (value) => Array.isArray(value),
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  integer: (value) => Number.isInteger(value),
  boolean: (value) => typeof value === 'boolean',
  null: (value) => value === null,
};

/** @type {Map<string, RegExp>} */
const patterns = new Map();
/** @param {string} source */
function patternOf(source) {
  let pattern = patterns.get(source);
  if (!pattern) {
    pattern = new RegExp(source, 'u');
    patterns.set(source, pattern);
  }
  return pattern;
}

/**
 * @param {JsonSchema | undefined} schema
 * @param {unknown} value
 * @param {string} [path] the JSON Pointer of `value` in the answer
 * @returns {string | null} where the value first fails the schema (a JSON Pointer and why), or null
 */
export function mismatchOf(schema, value, path = '') {
  if (schema === true || schema === undefined) return null;
  if (schema === false) return `${path || '/'}: not allowed`;
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => typeChecks[type]?.(value))) return `${path || '/'}: expected ${types.join(' or ')}`;
  }
  if ('const' in schema && value !== schema.const) return `${path || '/'}: expected ${JSON.stringify(schema.const)}`;
  if (schema.enum && !schema.enum.includes(value)) return `${path || '/'}: not one of the allowed values`;
  if (schema.allOf) {
    for (const part of schema.allOf) {
      const mismatch = mismatchOf(part, value, path);
      if (mismatch) return mismatch;
    }
  }
  for (const key of /** @type {const} */ (['anyOf', 'oneOf'])) {
    if (schema[key] && !schema[key].some((part) => mismatchOf(part, value, path) === null)) return `${path || '/'}: matches none of the allowed shapes`;
  }
  if (typeof value === 'string') {
    if (schema.pattern && !patternOf(schema.pattern).test(value)) return `${path || '/'}: does not match ${schema.pattern}`;
    if (schema.minLength !== undefined && [...value].length < schema.minLength) return `${path || '/'}: too short`;
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) return `${path || '/'}: too long`;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return `${path || '/'}: below ${schema.minimum}`;
    if (schema.maximum !== undefined && value > schema.maximum) return `${path || '/'}: above ${schema.maximum}`;
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return `${path || '/'}: too few items`;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return `${path || '/'}: too many items`;
    if (schema.items !== undefined) {
      for (let index = 0; index < value.length; index++) {
        const mismatch = mismatchOf(schema.items, value[index], `${path}/${index}`);
        if (mismatch) return mismatch;
      }
    }
  } else if (isObject(value)) {
    const properties = schema.properties ?? {};
    for (const name of schema.required ?? []) if (!Object.hasOwn(value, name)) return `${path}/${name}: missing`;
    for (const [name, item] of Object.entries(value)) {
      const mismatch = Object.hasOwn(properties, name)
        ? mismatchOf(properties[name], item, `${path}/${name}`)
        : schema.additionalProperties !== undefined
          ? mismatchOf(schema.additionalProperties, item, `${path}/${name}`)
          : null;
      if (mismatch) return mismatch;
    }
  }
  return null;
}
