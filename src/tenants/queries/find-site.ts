// Looks a site up by id, with its workspace id.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface SiteRow {
  id: string;
  workspace_id: string;
  name: string;
  created_at: string;
  /** 1: browser events without anon_id get a derived visitor id (src/visitors/). */
  cookieless: 0 | 1;
  /** Whole UTC days of events kept (src/projector/retention-purge.ts); null keeps them forever. */
  retention_days: number | null;
}

const statements = preparedOnce((db) => ({
  byId: db.prepare<[string], SiteRow>('SELECT id, workspace_id, name, created_at, cookieless, retention_days FROM sites WHERE id = ?'),
}));

export function findSite(db: Db, siteId: string): SiteRow | undefined {
  return statements(db).byId.get(siteId);
}
