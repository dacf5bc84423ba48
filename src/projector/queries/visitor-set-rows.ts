// Visitor-set containers: read, write and delete one (site, dimension value, grain, period, internal, chunk).
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface ContainerAddress {
  site_id: string;
  dim: number;
  grain: number;
  period: number;
  internal: number;
  value_id: number;
  chunk: number;
}

// Positional parameters, in the primary key's order: binding by name costs about 1.5 µs per statement with this
// many parameters, and the projector runs several of these per event.
const where = 'site_id = ? AND dim = ? AND value_id = ? AND internal = ? AND grain = ? AND period = ? AND chunk = ?';
type KeyArgs = [site_id: string, dim: number, value_id: number, internal: number, grain: number, period: number, chunk: number];
const keyArgs = (a: ContainerAddress): KeyArgs => [a.site_id, a.dim, a.value_id, a.internal, a.grain, a.period, a.chunk];

const statements = preparedOnce((db) => ({
  read: db.prepare<KeyArgs, Buffer>(`SELECT members FROM report_visitor_sets WHERE ${where}`).pluck(),
  write: db.prepare<[...KeyArgs, members: Uint8Array]>(
    `INSERT INTO report_visitor_sets (site_id, dim, value_id, internal, grain, period, chunk, members)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (site_id, dim, value_id, internal, grain, period, chunk) DO UPDATE SET members = excluded.members`,
  ),
  // One walk of the primary key for many periods of one value's sets.
  range: db
    .prepare<ContainerRangeParams, [number, number, Buffer]>(
      `SELECT period, chunk, members FROM report_visitor_sets
        WHERE site_id = :site_id AND dim = :dim AND value_id = :value_id AND internal = :internal AND grain = :grain
          AND period BETWEEN :first AND :last`,
    )
    .raw(),
  delete: db.prepare<KeyArgs>(`DELETE FROM report_visitor_sets WHERE ${where}`),
  deleteOfSite: db.prepare<[string]>('DELETE FROM report_visitor_sets WHERE site_id = ?'),
}));

export function readVisitorContainer(db: Db, address: ContainerAddress): Buffer | undefined {
  return statements(db).read.get(...keyArgs(address)) as Buffer | undefined;
}

export interface ContainerRangeParams {
  site_id: string;
  dim: number;
  value_id: number;
  internal: number;
  grain: number;
  /** First and last period, inclusive. */
  first: number;
  last: number;
}

/** Every container of one value's sets in the periods first..last, as [period, chunk, members], in key order. */
export function listVisitorContainers(db: Db, params: ContainerRangeParams): [number, number, Buffer][] {
  return statements(db).range.all(params);
}

export function writeVisitorContainer(db: Db, address: ContainerAddress, members: Uint8Array | undefined): void {
  if (members) statements(db).write.run(...keyArgs(address), members);
  else statements(db).delete.run(...keyArgs(address));
}

export function deleteVisitorSetsOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
