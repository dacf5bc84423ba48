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

const where =
  'site_id = :site_id AND dim = :dim AND grain = :grain AND period = :period AND internal = :internal AND value_id = :value_id AND chunk = :chunk';

const statements = preparedOnce((db) => ({
  read: db.prepare<ContainerAddress, Buffer>(`SELECT members FROM report_visitor_sets WHERE ${where}`).pluck(),
  write: db.prepare<ContainerAddress & { members: Uint8Array }>(
    `INSERT INTO report_visitor_sets (site_id, dim, grain, period, internal, value_id, chunk, members)
     VALUES (:site_id, :dim, :grain, :period, :internal, :value_id, :chunk, :members)
     ON CONFLICT (site_id, dim, value_id, internal, grain, period, chunk) DO UPDATE SET members = excluded.members`,
  ),
  delete: db.prepare<ContainerAddress>(`DELETE FROM report_visitor_sets WHERE ${where}`),
  deleteOfSite: db.prepare<[string]>('DELETE FROM report_visitor_sets WHERE site_id = ?'),
}));

export function readVisitorContainer(db: Db, address: ContainerAddress): Buffer | undefined {
  return statements(db).read.get(address) as Buffer | undefined;
}

export function writeVisitorContainer(db: Db, address: ContainerAddress, members: Uint8Array | undefined): void {
  if (members) statements(db).write.run({ ...address, members });
  else statements(db).delete.run(address);
}

export function deleteVisitorSetsOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
