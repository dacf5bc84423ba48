// The share links' rows: looked up by the digest of the token, listed per site.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface ShareLinkRow {
  id: string;
  workspace_id: string;
  site_id: string;
  token_hash: Buffer;
  label: string;
  created_at: string;
  revoked_at: string | null;
  /** Who made it ("user:<id>", "admin", "apiKey:<id>"; null before schema version 22). */
  created_by: string | null;
  /** A JSON array of origins the link's dashboard may be framed by ('[]': none). */
  embed_origins: string;
}

const statements = preparedOnce((db) => ({
  insert: db.prepare<ShareLinkRow>(
    `INSERT INTO ui_share_links (id, workspace_id, site_id, token_hash, label, created_at, revoked_at, created_by, embed_origins)
     VALUES (:id, :workspace_id, :site_id, :token_hash, :label, :created_at, :revoked_at, :created_by, :embed_origins)`,
  ),
  byHash: db.prepare<[Buffer], ShareLinkRow>('SELECT * FROM ui_share_links WHERE token_hash = ?'),
  // created_by NULL: every link of the site; else only that creator's.
  bySite: db.prepare<{ site_id: string; workspace_id: string; limit: number; created_by: string | null }, ShareLinkRow>(
    'SELECT * FROM ui_share_links WHERE site_id = :site_id AND workspace_id = :workspace_id AND (:created_by IS NULL OR created_by = :created_by) ORDER BY created_at DESC, id LIMIT :limit',
  ),
  revoke: db.prepare<{ id: string; site_id: string; workspace_id: string; now: string; created_by: string | null }>(
    'UPDATE ui_share_links SET revoked_at = :now WHERE id = :id AND site_id = :site_id AND workspace_id = :workspace_id AND revoked_at IS NULL AND (:created_by IS NULL OR created_by = :created_by)',
  ),
  byId: db.prepare<[string], ShareLinkRow>('SELECT * FROM ui_share_links WHERE id = ?'),
  find: db.prepare<{ id: string; site_id: string; workspace_id: string }, ShareLinkRow>(
    'SELECT * FROM ui_share_links WHERE id = :id AND site_id = :site_id AND workspace_id = :workspace_id',
  ),
}));

export function insertShareLink(db: Db, row: ShareLinkRow): void {
  statements(db).insert.run(row);
}

export function findShareLinkByHash(db: Db, tokenHash: Buffer): ShareLinkRow | undefined {
  return statements(db).byHash.get(tokenHash);
}

/** A link by its id alone (the embedding page names it; its origins are not a secret). */
export function findShareLinkById(db: Db, id: string): ShareLinkRow | undefined {
  return statements(db).byId.get(id);
}

/** `created_by` undefined: every link of the site; else only those that creator made. */
export function listShareLinkRows(db: Db, params: { site_id: string; workspace_id: string; limit: number; created_by?: string }): ShareLinkRow[] {
  return statements(db).bySite.all({ ...params, created_by: params.created_by ?? null });
}

export function findShareLink(db: Db, params: { id: string; site_id: string; workspace_id: string }): ShareLinkRow | undefined {
  return statements(db).find.get(params);
}

/** True when a live link was revoked by this call. */
export function revokeShareLinkRow(db: Db, params: { id: string; site_id: string; workspace_id: string; now: string; created_by?: string }): boolean {
  return statements(db).revoke.run({ ...params, created_by: params.created_by ?? null }).changes === 1;
}

const removal = preparedOnce((db) => db.prepare<[string]>('DELETE FROM ui_share_links WHERE site_id = ?'));

/** Deleting a site deletes its links (a site id reused later never inherits them). */
export function deleteShareLinksOfSite(db: Db, siteId: string): void {
  removal(db).run(siteId);
}
