// Where subschemas live inside a JSON Schema 2020-12 document, and a search over them by JSON Pointer.
import { escapePointerToken } from './bundle.ts';

/** Keywords whose value is one subschema. */
export const singleSchemaKeywords = [
  'additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames',
  'unevaluatedItems', 'unevaluatedProperties', 'additionalItems', 'contentSchema',
] as const;

/** Keywords whose value is an object of subschemas. */
export const schemaMapKeywords = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;

/** Keywords whose value is an array of subschemas. */
export const schemaArrayKeywords = ['prefixItems', 'allOf', 'anyOf', 'oneOf'] as const;

export type SchemaObject = { [keyword: string]: unknown };

export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The pointer of the first subschema (depth first, the schema itself first) that `matches`, or undefined.
 * Values of data keywords (const, enum, default, examples) are never searched: only schema positions.
 * @example findSubschema(schema, (s) => 'minimun' in s) // "/properties/props"
 */
export function findSubschema(schema: unknown, matches: (subschema: SchemaObject, pointer: string) => boolean, pointer = ''): string | undefined {
  if (!isSchemaObject(schema)) return undefined;
  if (matches(schema, pointer)) return pointer;
  for (const keyword of singleSchemaKeywords) {
    const found = findSubschema(schema[keyword], matches, `${pointer}/${keyword}`);
    if (found !== undefined) return found;
  }
  for (const keyword of schemaMapKeywords) {
    const map = schema[keyword];
    if (!isSchemaObject(map)) continue;
    for (const [name, subschema] of Object.entries(map)) {
      const found = findSubschema(subschema, matches, `${pointer}/${keyword}/${escapePointerToken(name)}`);
      if (found !== undefined) return found;
    }
  }
  for (const keyword of schemaArrayKeywords) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    for (const [index, subschema] of list.entries()) {
      const found = findSubschema(subschema, matches, `${pointer}/${keyword}/${index}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Keywords whose string value an error message may quote. */
const referenceKeywords = ['$ref', '$dynamicRef', '$id', '$schema', '$anchor', '$dynamicAnchor', 'format', 'pattern'];

/**
 * Locates the problem an ajv compile error describes. Strict-mode messages name the schema path (`at "#/..."`) or
 * quote the offending keyword or reference; the first subschema holding it is the answer, else the schema root.
 */
export function locateCompileError(schema: unknown, message: string): string {
  const tokens = [...message.matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
  const at = /\bat (?:path )?"[^"#]*#([^"]*)"/.exec(message);
  const named = at ? decodeFragment(at[1]!) : undefined;
  if (named !== undefined) {
    for (const token of tokens) {
      const pointer = pointerOfKeyword(schema, named, token);
      if (pointer !== named) return pointer;
    }
    return named;
  }
  const reference = /can't resolve reference (\S+) from id/.exec(message);
  if (reference) tokens.unshift(reference[1]!);
  // A pattern that is not a valid regular expression fails when ajv builds its RegExp: find it by its source.
  const regex = /^Invalid regular expression: \/(.*)\/[a-z]*: /s.exec(message);
  if (regex) {
    const source = regex[1]!;
    const found = findSubschema(schema, (subschema) => subschema.pattern === source || (isSchemaObject(subschema.patternProperties) && Object.hasOwn(subschema.patternProperties, source)));
    if (found !== undefined) return pointerOfKeyword(schema, found, source);
  }
  for (const token of tokens) {
    const found = findSubschema(schema, (subschema) =>
      Object.hasOwn(subschema, token) || referenceKeywords.some((keyword) => subschema[keyword] === token),
    );
    if (found !== undefined) return pointerOfKeyword(schema, found, token);
  }
  return '';
}

function decodeFragment(fragment: string): string | undefined {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}

/** Points at the keyword itself when the token is one (e.g. /properties/props/minimun), else at the subschema. */
function pointerOfKeyword(schema: unknown, subschemaPointer: string, token: string): string {
  let subschema: unknown = schema;
  for (const part of subschemaPointer.split('/').slice(1)) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof subschema !== 'object' || subschema === null) return subschemaPointer;
    subschema = Array.isArray(subschema) ? subschema[Number(key)] : (subschema as SchemaObject)[key];
  }
  if (isSchemaObject(subschema) && Object.hasOwn(subschema, token)) return `${subschemaPointer}/${escapePointerToken(token)}`;
  if (isSchemaObject(subschema) && isSchemaObject(subschema.patternProperties) && Object.hasOwn(subschema.patternProperties, token)) {
    return `${subschemaPointer}/patternProperties/${escapePointerToken(token)}`;
  }
  const keyword = referenceKeywords.find((name) => isSchemaObject(subschema) && subschema[name] === token);
  return keyword ? `${subschemaPointer}/${keyword}` : subschemaPointer;
}
