// Plan diff rules for the keywords that hold values, not subschemas: type, enum/const, required, bounds, pattern…
import { escapePointerToken } from './bundle.ts';
import { describeValues, isJsonEqual, valuesMissingFrom } from './schema-compare.ts';
import type { DiffContext, KeywordDiff } from './keyword-diff.ts';
import { isSchemaObject, type SchemaObject } from './schema-walk.ts';

function typesOf(schema: SchemaObject): string[] | undefined {
  if (typeof schema.type === 'string') return [schema.type];
  return Array.isArray(schema.type) ? schema.type.map(String) : undefined;
}

/** integer values are numbers, so a number type covers integer. */
function coversType(types: string[], type: string): boolean {
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

const typeDiff: KeywordDiff = {
  keywords: ['type'],
  compare(oldSchema, newSchema, path, context) {
    const [before, after] = [typesOf(oldSchema), typesOf(newSchema)];
    const at = `${path}/type`;
    if (!before && !after) return;
    if (!before) return context.report(at, 'type-added', true, `type restricted to ${describeValues(after!)} (any type was accepted)`);
    if (!after) return context.report(at, 'type-removed', false, `type restriction ${describeValues(before)} removed: any type is accepted`);
    const lost = before.filter((type) => !coversType(after, type));
    const gained = after.filter((type) => !coversType(before, type));
    const change = `from ${describeValues(before)} to ${describeValues(after)}`;
    if (lost.length > 0 && gained.length > 0) context.report(at, 'type-changed', true, `type changed ${change}`);
    else if (lost.length > 0) context.report(at, 'type-narrowed', true, `type narrowed ${change}`);
    else if (gained.length > 0) context.report(at, 'type-widened', false, `type widened ${change}`);
  },
};

/** The values a schema allows through enum and const together; undefined when it does not restrict values. */
function allowedValues(schema: SchemaObject): unknown[] | undefined {
  const hasConst = Object.hasOwn(schema, 'const');
  const list = Array.isArray(schema.enum) ? schema.enum : undefined;
  if (hasConst && list) return list.filter((value) => isJsonEqual(value, schema.const));
  if (hasConst) return [schema.const];
  return list;
}

const valuesDiff: KeywordDiff = {
  keywords: ['enum', 'const'],
  compare(oldSchema, newSchema, path, context) {
    const [before, after] = [allowedValues(oldSchema), allowedValues(newSchema)];
    const keyword = (schema: SchemaObject) => (Array.isArray(schema.enum) ? 'enum' : 'const');
    if (!before && !after) return;
    if (!before) return context.report(`${path}/${keyword(newSchema)}`, `${keyword(newSchema)}-added`, true, `values restricted to ${describeValues(after!)}`);
    if (!after) return context.report(`${path}/${keyword(oldSchema)}`, `${keyword(oldSchema)}-removed`, false, `value restriction removed (was ${describeValues(before)})`);
    const removed = valuesMissingFrom(before, after);
    const added = valuesMissingFrom(after, before);
    const at = `${path}/${keyword(newSchema)}`;
    const constOnly = keyword(oldSchema) === 'const' && keyword(newSchema) === 'const';
    if (constOnly && removed.length > 0) return context.report(at, 'const-changed', true, `const changed from ${describeValues(before)} to ${describeValues(after)}`);
    if (removed.length > 0) context.report(at, 'enum-values-removed', true, `allowed values removed: ${describeValues(removed)}`);
    if (added.length > 0) context.report(at, 'enum-values-added', false, `allowed values added: ${describeValues(added)}`);
  },
};

const requiredDiff: KeywordDiff = {
  keywords: ['required'],
  compare(oldSchema, newSchema, path, context) {
    const before = Array.isArray(oldSchema.required) ? oldSchema.required.map(String) : [];
    const after = Array.isArray(newSchema.required) ? newSchema.required.map(String) : [];
    for (const name of after.filter((item) => !before.includes(item))) {
      context.report(`${path}/required`, 'required-added', true, `property "${name}" is now required`);
    }
    for (const name of before.filter((item) => !after.includes(item))) {
      context.report(`${path}/required`, 'required-removed', false, `property "${name}" is no longer required`);
    }
  },
};

const lowerBounds = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains'];
const upperBounds = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains'];

/** A bound's value; minContains is 1 by default wherever contains is present. */
function boundOf(schema: SchemaObject, keyword: string): number | undefined {
  if (typeof schema[keyword] === 'number') return schema[keyword];
  return keyword === 'minContains' && Object.hasOwn(schema, 'contains') ? 1 : undefined;
}

const boundsDiff: KeywordDiff = {
  keywords: [...lowerBounds, ...upperBounds],
  compare(oldSchema, newSchema, path, context) {
    for (const keyword of [...lowerBounds, ...upperBounds]) {
      const [before, after] = [boundOf(oldSchema, keyword), boundOf(newSchema, keyword)];
      if (before === after) continue;
      const at = `${path}/${keyword}`;
      if (before === undefined) context.report(at, 'constraint-added', true, `${keyword} ${after} added`);
      else if (after === undefined) context.report(at, 'constraint-removed', false, `${keyword} ${before} removed`);
      else if (lowerBounds.includes(keyword) === after > before) context.report(at, 'constraint-tightened', true, `${keyword} tightened from ${before} to ${after}`);
      else context.report(at, 'constraint-loosened', false, `${keyword} loosened from ${before} to ${after}`);
    }
  },
};

const multipleOfDiff: KeywordDiff = {
  keywords: ['multipleOf'],
  compare(oldSchema, newSchema, path, context) {
    const [before, after] = [oldSchema.multipleOf, newSchema.multipleOf];
    if (before === after) return;
    const at = `${path}/multipleOf`;
    if (typeof before !== 'number') return context.report(at, 'constraint-added', true, `multipleOf ${String(after)} added`);
    if (typeof after !== 'number') return context.report(at, 'constraint-removed', false, `multipleOf ${before} removed`);
    // Every multiple of 10 is a multiple of 5: a divisor of the old step accepts everything the old step did.
    if (Number.isInteger(before / after)) return context.report(at, 'constraint-loosened', false, `multipleOf loosened from ${before} to ${after}`);
    context.report(at, 'constraint-changed', true, `multipleOf changed from ${before} to ${after}: values accepted before may be rejected`);
  },
};

/** Keywords whose values cannot be compared for inclusion (two regular expressions, two formats). */
const opaqueDiff: KeywordDiff = {
  keywords: ['pattern', 'format'],
  compare(oldSchema, newSchema, path, context) {
    for (const keyword of ['pattern', 'format']) {
      const [before, after] = [oldSchema[keyword], newSchema[keyword]];
      if (before === after) continue;
      const at = `${path}/${keyword}`;
      if (before === undefined) context.report(at, 'constraint-added', true, `${keyword} ${JSON.stringify(after)} added`);
      else if (after === undefined) context.report(at, 'constraint-removed', false, `${keyword} ${JSON.stringify(before)} removed`);
      else context.report(at, 'constraint-changed', true, `${keyword} changed from ${JSON.stringify(before)} to ${JSON.stringify(after)}: cannot prove it accepts every value the old one did`);
    }
  },
};

const uniqueItemsDiff: KeywordDiff = {
  keywords: ['uniqueItems'],
  compare(oldSchema, newSchema, path, context) {
    const [before, after] = [oldSchema.uniqueItems === true, newSchema.uniqueItems === true];
    if (before === after) return;
    if (after) context.report(`${path}/uniqueItems`, 'constraint-added', true, 'uniqueItems added: arrays with repeated items are rejected');
    else context.report(`${path}/uniqueItems`, 'constraint-removed', false, 'uniqueItems removed');
  },
};

function dependenciesOf(schema: SchemaObject): Record<string, string[]> {
  const map = isSchemaObject(schema.dependentRequired) ? schema.dependentRequired : {};
  return Object.fromEntries(Object.entries(map).map(([name, list]) => [name, Array.isArray(list) ? list.map(String) : []]));
}

const dependentRequiredDiff: KeywordDiff = {
  keywords: ['dependentRequired'],
  compare(oldSchema, newSchema, path, context: DiffContext) {
    const [before, after] = [dependenciesOf(oldSchema), dependenciesOf(newSchema)];
    for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const [was, is] = [before[name] ?? [], after[name] ?? []];
      const at = `${path}/dependentRequired/${escapePointerToken(name)}`;
      const added = is.filter((item) => !was.includes(item));
      const removed = was.filter((item) => !is.includes(item));
      if (added.length > 0) context.report(at, 'required-added', true, `when "${name}" is present, ${describeValues(added)} are now required`);
      if (removed.length > 0) context.report(at, 'required-removed', false, `when "${name}" is present, ${describeValues(removed)} are no longer required`);
    }
  },
};

export const keywordDiffs: KeywordDiff[] = [typeDiff, valuesDiff, requiredDiff, boundsDiff, multipleOfDiff, opaqueDiff, uniqueItemsDiff, dependentRequiredDiff];
