// Plan diff rules for keywords that hold subschemas: properties and additionalProperties, items and prefixItems,
// composition (allOf, anyOf, if/then/else) and the other applicators. Subschemas are compared recursively.
import { escapePointerToken } from './bundle.ts';
import { isUnconstrained, isJsonEqual } from './schema-compare.ts';
import type { DiffContext, KeywordDiff } from './keyword-diff.ts';
import { isSchemaObject, type SchemaObject } from './schema-walk.ts';

const mapOf = (value: unknown): SchemaObject => (isSchemaObject(value) ? value : {});
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
/** An absent or permissive subschema accepts everything: written `true` so equivalent forms compare equal. */
const openSchema = (value: unknown): unknown => (value === undefined || isUnconstrained(value) ? true : value);

/** Pattern schemas of `schema` whose regular expression matches the property name. */
function patternsMatching(schema: SchemaObject, name: string): unknown[] {
  return Object.entries(mapOf(schema.patternProperties))
    .filter(([pattern]) => {
      try {
        return new RegExp(pattern, 'u').test(name);
      } catch {
        return true; // a broken pattern cannot be ruled out
      }
    })
    .map(([, patternSchema]) => patternSchema);
}

/**
 * A declared property is validated by its schema and every matching pattern; an undeclared one by the matching
 * patterns, or by additionalProperties when none matches. Adding or removing a declaration moves a property
 * between those rules.
 */
const objectDiff: KeywordDiff = {
  keywords: ['properties', 'additionalProperties', 'patternProperties'],
  compare(oldSchema, newSchema, path, context) {
    const [oldProperties, newProperties] = [mapOf(oldSchema.properties), mapOf(newSchema.properties)];
    const [oldAdditional, newAdditional] = [openSchema(oldSchema.additionalProperties), openSchema(newSchema.additionalProperties)];
    const newClosed = newAdditional === false || newSchema.unevaluatedProperties === false;
    for (const name of new Set([...Object.keys(oldProperties), ...Object.keys(newProperties)])) {
      const at = `${path}/properties/${escapePointerToken(name)}`;
      const [before, after] = [oldProperties[name], newProperties[name]];
      if (before !== undefined && after !== undefined) context.diff(before, after, at);
      else if (after !== undefined) compareAddedProperty(name, after, oldSchema, oldAdditional, at, context);
      else if (patternsMatching(newSchema, name).length > 0) {
        if (patternsMatching(newSchema, name).every(isUnconstrained)) context.report(at, 'property-removed', false, `property "${name}" removed: a pattern property accepts it`);
        else context.report(at, 'unclassified', true, `property "${name}" removed: it now falls under patternProperties; cannot classify, treated as breaking`);
      } else if (newClosed) {
        context.report(at, 'property-removed', true, `property "${name}" removed while additional properties are forbidden: events that send it are now rejected`);
      } else if (isSchemaObject(newAdditional)) {
        context.diff(before, newAdditional, at);
      } else {
        context.report(at, 'property-removed', false, `property "${name}" removed: it is still accepted as an additional property`);
      }
    }
    compareAdditional(oldAdditional, newAdditional, `${path}/additionalProperties`, context);
    const [oldPatterns, newPatterns] = [mapOf(oldSchema.patternProperties), mapOf(newSchema.patternProperties)];
    for (const pattern of new Set([...Object.keys(oldPatterns), ...Object.keys(newPatterns)])) {
      const at = `${path}/patternProperties/${escapePointerToken(pattern)}`;
      const [before, after] = [oldPatterns[pattern], newPatterns[pattern]];
      if (before !== undefined && after !== undefined) context.diff(before, after, at);
      else if (after !== undefined) context.report(at, 'constraint-added', !isUnconstrained(after), `pattern property ${JSON.stringify(pattern)} added`);
      else if (newClosed) context.report(at, 'constraint-removed', true, `pattern property ${JSON.stringify(pattern)} removed while additional properties are forbidden: matching properties are now rejected`);
      else context.report(at, 'constraint-removed', false, `pattern property ${JSON.stringify(pattern)} removed`);
    }
  },
};

function compareAddedProperty(name: string, after: unknown, oldSchema: SchemaObject, oldAdditional: unknown, at: string, context: DiffContext): void {
  if (patternsMatching(oldSchema, name).length > 0) {
    // It was validated by the pattern, and still is: the declaration only adds constraints.
    if (isUnconstrained(after)) context.report(at, 'property-added', false, `property "${name}" declared without constraints`);
    else context.report(at, 'property-added', true, `property "${name}" declared with constraints on top of the pattern property that matched it`);
  } else if (oldAdditional === false) {
    context.report(at, 'property-added', false, `property "${name}" declared; it was rejected as an additional property before`);
  } else if (isSchemaObject(oldAdditional)) {
    context.diff(oldAdditional, after, at);
  } else if (isUnconstrained(after)) {
    context.report(at, 'property-added', false, `property "${name}" declared without constraints`);
  } else {
    context.report(at, 'property-added', true, `property "${name}" is now constrained where additional properties were allowed: events whose "${name}" does not match are rejected`);
  }
}

function compareAdditional(before: unknown, after: unknown, at: string, context: DiffContext): void {
  if (isJsonEqual(before, after)) return;
  if (before === false) context.report(at, 'additional-properties-allowed', false, after === true ? 'additional properties are now allowed' : 'additional properties are now allowed when they match its schema');
  else if (after === false) context.report(at, 'additional-properties-forbidden', true, 'additional properties are now forbidden: events with undeclared properties are rejected');
  else if (before === true) context.report(at, 'additional-properties-constrained', true, 'additional properties are now constrained by a schema: some that were accepted are rejected');
  else if (after === true) context.report(at, 'additional-properties-allowed', false, 'additional properties are no longer constrained');
  else context.diff(before, after, at);
}

/** Position i of an array is validated by prefixItems[i] when there is one, else by items. */
const arrayDiff: KeywordDiff = {
  keywords: ['prefixItems', 'items'],
  compare(oldSchema, newSchema, path, context) {
    const [oldPrefix, newPrefix] = [listOf(oldSchema.prefixItems), listOf(newSchema.prefixItems)];
    const [oldItems, newItems] = [oldSchema.items ?? true, newSchema.items ?? true];
    for (let index = 0; index < Math.max(oldPrefix.length, newPrefix.length); index += 1) {
      const before = index < oldPrefix.length ? oldPrefix[index] : oldItems;
      const after = index < newPrefix.length ? newPrefix[index] : newItems;
      context.diff(before, after, index < newPrefix.length ? `${path}/prefixItems/${index}` : `${path}/items`);
    }
    context.diff(oldItems, newItems, `${path}/items`);
  },
};

/** Applicators that only ever add constraints to what their subschema rejects; absent means "accepts everything". */
const monotoneDiff: KeywordDiff = {
  keywords: ['propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'dependentSchemas', 'allOf'],
  compare(oldSchema, newSchema, path, context) {
    for (const keyword of ['propertyNames', 'unevaluatedProperties', 'unevaluatedItems']) {
      context.diff(oldSchema[keyword] ?? true, newSchema[keyword] ?? true, `${path}/${keyword}`);
    }
    const [oldDependent, newDependent] = [mapOf(oldSchema.dependentSchemas), mapOf(newSchema.dependentSchemas)];
    for (const name of new Set([...Object.keys(oldDependent), ...Object.keys(newDependent)])) {
      context.diff(oldDependent[name] ?? true, newDependent[name] ?? true, `${path}/dependentSchemas/${escapePointerToken(name)}`);
    }
    const [oldAll, newAll] = [listOf(oldSchema.allOf), listOf(newSchema.allOf)];
    for (let index = 0; index < Math.max(oldAll.length, newAll.length); index += 1) {
      const at = `${path}/allOf/${index}`;
      if (index >= newAll.length) context.report(at, 'constraint-removed', false, 'allOf entry removed: one constraint less');
      else if (index >= oldAll.length) context.report(at, 'constraint-added', !isUnconstrained(newAll[index]), 'allOf entry added: every event must also match it');
      else context.diff(oldAll[index], newAll[index], at);
    }
  },
};

/** contains: absent means no constraint, while `contains: true` still needs one item, so absent is not `true` here. */
const containsDiff: KeywordDiff = {
  keywords: ['contains'],
  compare(oldSchema, newSchema, path, context) {
    const [before, after] = [oldSchema.contains, newSchema.contains];
    if (before === undefined && after === undefined) return;
    if (before === undefined) context.report(`${path}/contains`, 'constraint-added', true, 'contains added: arrays need a matching item');
    else if (after === undefined) context.report(`${path}/contains`, 'constraint-removed', false, 'contains removed');
    else context.diff(before, after, `${path}/contains`);
  },
};

/** anyOf accepts what any branch accepts: a new branch loosens, a removed branch tightens. */
const anyOfDiff: KeywordDiff = {
  keywords: ['anyOf'],
  compare(oldSchema, newSchema, path, context) {
    const [before, after] = [oldSchema.anyOf, newSchema.anyOf];
    if (before === undefined && after === undefined) return;
    const at = `${path}/anyOf`;
    if (before === undefined) return context.report(at, 'constraint-added', !listOf(after).some(isUnconstrained), 'anyOf added: events must match one of its schemas');
    if (after === undefined) return context.report(at, 'constraint-removed', false, 'anyOf removed');
    const [oldBranches, newBranches] = [listOf(before), listOf(after)];
    for (let index = 0; index < Math.max(oldBranches.length, newBranches.length); index += 1) {
      if (index >= newBranches.length) context.report(`${at}/${index}`, 'constraint-tightened', true, 'anyOf alternative removed: events that only matched it are rejected');
      else if (index >= oldBranches.length) context.report(`${at}/${index}`, 'constraint-loosened', false, 'anyOf alternative added');
      else context.diff(oldBranches[index], newBranches[index], `${at}/${index}`);
    }
  },
};

/** then/else are compared when `if` is unchanged; a changed condition cannot be judged. */
const conditionalDiff: KeywordDiff = {
  keywords: ['if', 'then', 'else'],
  compare(oldSchema, newSchema, path, context) {
    const [before, after] = [oldSchema.if, newSchema.if];
    if (before === undefined && after === undefined) return;
    const bothBranchesOpen = isUnconstrained(newSchema.then ?? true) && isUnconstrained(newSchema.else ?? true);
    if (before === undefined) return context.report(`${path}/if`, 'constraint-added', !bothBranchesOpen, 'if/then/else added');
    if (after === undefined) return context.report(`${path}/if`, 'constraint-removed', false, 'if/then/else removed');
    if (!isJsonEqual(before, after)) return context.report(`${path}/if`, 'unclassified', true, '"if" changed: cannot classify a changed condition, treated as breaking');
    context.diff(oldSchema.then ?? true, newSchema.then ?? true, `${path}/then`);
    context.diff(oldSchema.else ?? true, newSchema.else ?? true, `${path}/else`);
  },
};

/** Definitions matter only through $ref, and a removed one still referenced would not load. */
const definitionsDiff: KeywordDiff = {
  keywords: ['$defs', 'definitions'],
  compare(oldSchema, newSchema, path, context) {
    for (const keyword of ['$defs', 'definitions']) {
      const [before, after] = [mapOf(oldSchema[keyword]), mapOf(newSchema[keyword])];
      for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
        const at = `${path}/${keyword}/${escapePointerToken(name)}`;
        if (before[name] !== undefined && after[name] !== undefined) context.diff(before[name], after[name], at);
        else if (after[name] !== undefined) context.report(at, 'definition-added', false, `definition "${name}" added`);
        else context.report(at, 'definition-removed', false, `definition "${name}" removed`);
      }
    }
  },
};

export const structureDiffs: KeywordDiff[] = [objectDiff, arrayDiff, monotoneDiff, containsDiff, anyOfDiff, conditionalDiff, definitionsDiff];
