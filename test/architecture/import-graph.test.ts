// Issue 25's rules on the real src/, through the same analysis as `npm run check:imports` (build/import-graph.mjs):
// no circle of files, no two folders importing each other, http/ importing no domain, no import up the layer table.
// A failure lists the offending imports as the command prints them (`node build/import-graph.mjs`: the whole report).
import { describe, expect, it } from 'vitest';
import {
  analyseImports,
  describeCircles,
  describeFolderPairs,
  describeHttpToDomain,
  describeTableProblems,
  describeUpward,
} from '../../build/import-graph.mjs';

const analysis = analyseImports();
/** A section of the report without its title line: one line per offending import (empty when the rule is kept). */
const offenders = (section: string[]) => section.slice(1);

describe('the import graph of src/', () => {
  it('reads the whole tree', () => {
    expect(analysis.fileCount).toBeGreaterThan(250);
    expect(analysis.importCount).toBeGreaterThan(1000);
  });

  it('places every file in the layer table, whose entries and allow-list are all in use', () => {
    expect(offenders(describeTableProblems(analysis.tableProblems))).toEqual([]);
  });

  it('has no circle of files', () => {
    expect(offenders(describeCircles(analysis.circles))).toEqual([]);
  });

  it('has no two folders that import each other', () => {
    expect(offenders(describeFolderPairs(analysis.folderPairs))).toEqual([]);
  });

  it('keeps http/ free of every domain', () => {
    expect(offenders(describeHttpToDomain(analysis.httpToDomain))).toEqual([]);
  });

  it('has no upward import that is not on the allow-list', () => {
    expect(offenders(describeUpward(analysis.upward))).toEqual([]);
  });
});
