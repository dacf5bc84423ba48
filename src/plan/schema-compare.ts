// Small comparisons the plan diff needs: JSON equality, value listing, and "does this schema constrain anything".
import { isSchemaObject } from './schema-walk.ts';

/** Keywords that describe and never reject: changing them cannot break a sender. */
export const annotationKeywords = new Set([
  'title', 'description', '$comment', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly',
  'contentEncoding', 'contentMediaType', 'contentSchema',
]);

/** JSON text with object keys sorted, so two equal JSON values give the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isSchemaObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function isJsonEqual(left: unknown, right: unknown): boolean {
  return canonicalJson(left) === canonicalJson(right);
}

/** Values of `left` that are not in `right` (JSON equality). */
export function valuesMissingFrom(left: readonly unknown[], right: readonly unknown[]): unknown[] {
  const present = new Set(right.map(canonicalJson));
  return left.filter((value) => !present.has(canonicalJson(value)));
}

/** A short, readable rendering of JSON values for messages. */
export function describeValues(values: readonly unknown[]): string {
  const shown = values.slice(0, 8).map((value) => JSON.stringify(value)).join(', ');
  return values.length > 8 ? `${shown}, … (${values.length} values)` : shown;
}

/** True when the schema accepts every value: `true`, `{}`, or only annotations and explicitly permissive keywords. */
export function isUnconstrained(schema: unknown): boolean {
  if (schema === true) return true;
  if (!isSchemaObject(schema)) return false;
  return Object.entries(schema).every(([keyword, value]) => {
    if (annotationKeywords.has(keyword) || keyword === '$defs' || keyword === 'definitions') return true;
    if (['additionalProperties', 'unevaluatedProperties', 'items', 'unevaluatedItems', 'propertyNames'].includes(keyword)) return isUnconstrained(value);
    if (keyword === 'required') return Array.isArray(value) && value.length === 0;
    if (keyword === 'properties' || keyword === 'patternProperties' || keyword === 'dependentSchemas') {
      return isSchemaObject(value) && Object.values(value).every(isUnconstrained);
    }
    if (keyword === 'allOf') return Array.isArray(value) && value.every(isUnconstrained);
    return false;
  });
}
