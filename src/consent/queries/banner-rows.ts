// The saved banner of a site and the answers of its recent saves (by idempotency key); every statement names its site.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface BannerRow {
  site_id: string;
  config_version: number;
  consent_revision: number;
  /** The checked config, JSON text. */
  config: string;
  updated_at: string;
}

export interface BannerSaveRow {
  site_id: string;
  idempotency_key: string;
  request_sha256: string;
  config_version: number;
  /** The JSON answer the save was given. */
  answer: string;
}

export interface PruneSavesParams {
  site_id: string;
  /** Saves that made a version at or below this one are forgotten. */
  through_version: number;
}

const statements = preparedOnce((db) => ({
  find: db.prepare<[string], BannerRow>('SELECT site_id, config_version, consent_revision, config, updated_at FROM consent_banners WHERE site_id = ?'),
  upsert: db.prepare<BannerRow>(
    `INSERT INTO consent_banners (site_id, config_version, consent_revision, config, updated_at)
     VALUES (:site_id, :config_version, :consent_revision, :config, :updated_at)
     ON CONFLICT (site_id) DO UPDATE SET config_version = excluded.config_version, consent_revision = excluded.consent_revision,
       config = excluded.config, updated_at = excluded.updated_at`,
  ),
  findSave: db.prepare<[string, string], BannerSaveRow>(
    'SELECT site_id, idempotency_key, request_sha256, config_version, answer FROM consent_banner_saves WHERE site_id = ? AND idempotency_key = ?',
  ),
  insertSave: db.prepare<BannerSaveRow>(
    `INSERT INTO consent_banner_saves (site_id, idempotency_key, request_sha256, config_version, answer)
     VALUES (:site_id, :idempotency_key, :request_sha256, :config_version, :answer)`,
  ),
  pruneSaves: db.prepare<PruneSavesParams>('DELETE FROM consent_banner_saves WHERE site_id = :site_id AND config_version <= :through_version'),
  deleteBanner: db.prepare<[string]>('DELETE FROM consent_banners WHERE site_id = ?'),
  deleteSaves: db.prepare<[string]>('DELETE FROM consent_banner_saves WHERE site_id = ?'),
}));

export function findBanner(db: Db, siteId: string): BannerRow | undefined {
  return statements(db).find.get(siteId);
}

export function upsertBanner(db: Db, row: BannerRow): void {
  statements(db).upsert.run(row);
}

export function findBannerSave(db: Db, siteId: string, idempotencyKey: string): BannerSaveRow | undefined {
  return statements(db).findSave.get(siteId, idempotencyKey);
}

export function insertBannerSave(db: Db, row: BannerSaveRow): void {
  statements(db).insertSave.run(row);
}

export function pruneBannerSaves(db: Db, params: PruneSavesParams): void {
  statements(db).pruneSaves.run(params);
}

/** The site's banner and its saves (a site deletion). */
export function deleteBannerOfSite(db: Db, siteId: string): void {
  statements(db).deleteBanner.run(siteId);
  statements(db).deleteSaves.run(siteId);
}
