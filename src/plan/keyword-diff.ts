// The shape of one keyword comparison of schema-diff.ts; schema-diff-keywords.ts and schema-diff-structure.ts
// implement it, schema-diff.ts runs them all.
import type { SchemaObject } from './schema-walk.ts';

/** What every keyword comparison gets: where to report, and how to compare the subschemas it holds. */
export interface DiffContext {
  report(path: string, kind: string, breaking: boolean, message: string): void;
  /** Compares two subschemas; `true` stands for an absent one (it accepts everything). */
  diff(oldSchema: unknown, newSchema: unknown, path: string): void;
}

/** Compares the keywords it names; the rest of the schema is somebody else's. */
export interface KeywordDiff {
  keywords: readonly string[];
  compare(oldSchema: SchemaObject, newSchema: SchemaObject, path: string, context: DiffContext): void;
}
