// Compares two JSON Schemas keyword by keyword. A change is breaking when an event the old schema accepted may be
// rejected by the new one (the spec's "tightening validation" rule); what cannot be proven safe counts as breaking.
import { escapePointerToken } from './bundle.ts';
import type { DiffContext, KeywordDiff } from './keyword-diff.ts';
import type { PlanChange } from './plan-change.ts';
import { annotationKeywords, isJsonEqual } from './schema-compare.ts';
import { keywordDiffs } from './schema-diff-keywords.ts';
import { structureDiffs } from './schema-diff-structure.ts';
import { isSchemaObject, type SchemaObject } from './schema-walk.ts';

const allDiffs: KeywordDiff[] = [...keywordDiffs, ...structureDiffs];
const handledKeywords = new Set(allDiffs.flatMap((keywordDiff) => keywordDiff.keywords));

/** Keywords whose removal only drops a constraint; adding one adds a constraint; a change cannot be judged. */
const constraintKeywords = new Set(['oneOf', 'not', '$ref', '$dynamicRef']);

/**
 * Appends to `changes` every difference between two schemas at `path` (a JSON Pointer into the bundle).
 * @example diffSchemas(oldBundle.events.signup, newBundle.events.signup, '/events/signup', changes)
 */
export function diffSchemas(oldSchema: unknown, newSchema: unknown, path: string, changes: PlanChange[]): void {
  const context: DiffContext = {
    report: (at, kind, breaking, message) => changes.push({ path: at, kind, breaking, message }),
    diff: (left, right, at) => diffSchemaAt(left, right, at, context),
  };
  diffSchemaAt(oldSchema, newSchema, path, context);
}

function diffSchemaAt(oldSchema: unknown, newSchema: unknown, path: string, context: DiffContext): void {
  if (isJsonEqual(oldSchema, newSchema)) return;
  if (oldSchema === false) return context.report(path, 'schema-loosened', false, 'was false (rejected every value) and now accepts some values');
  if (newSchema === false) return context.report(path, 'schema-false', true, 'is now false: every value here is rejected');
  const oldObject = oldSchema === true ? {} : oldSchema;
  const newObject = newSchema === true ? {} : newSchema;
  if (!isSchemaObject(oldObject) || !isSchemaObject(newObject)) {
    return context.report(path, 'unclassified', true, 'not a JSON Schema on one side: cannot classify, treated as breaking');
  }
  for (const keywordDiff of allDiffs) keywordDiff.compare(oldObject, newObject, path, context);
  const others = new Set([...Object.keys(oldObject), ...Object.keys(newObject)].filter((keyword) => !handledKeywords.has(keyword)));
  for (const keyword of others) compareOtherKeyword(keyword, oldObject, newObject, path, context);
}

function compareOtherKeyword(keyword: string, oldSchema: SchemaObject, newSchema: SchemaObject, path: string, context: DiffContext): void {
  const [before, after] = [oldSchema[keyword], newSchema[keyword]];
  if (isJsonEqual(before, after)) return;
  const at = `${path}/${escapePointerToken(keyword)}`;
  const [hadIt, hasIt] = [Object.hasOwn(oldSchema, keyword), Object.hasOwn(newSchema, keyword)];
  if (annotationKeywords.has(keyword)) {
    return context.report(at, 'annotation-changed', false, `annotation "${keyword}" ${hadIt ? (hasIt ? 'changed' : 'removed') : 'added'} (does not affect validation)`);
  }
  if (constraintKeywords.has(keyword) && !hadIt) return context.report(at, 'constraint-added', true, `"${keyword}" added: a new constraint may reject events that passed before`);
  if (constraintKeywords.has(keyword) && !hasIt) return context.report(at, 'constraint-removed', false, `"${keyword}" removed: one constraint less`);
  context.report(at, 'unclassified', true, `"${keyword}" ${hadIt ? (hasIt ? 'changed' : 'removed') : 'added'}: cannot tell whether every event accepted before is still accepted, so treated as breaking`);
}
