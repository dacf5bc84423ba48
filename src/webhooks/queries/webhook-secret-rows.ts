// Reads and writes the sealed secret of one (site, adapter); every statement names both.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface WebhookSecretRow {
  site_id: string;
  adapter: string;
  sealed: Buffer;
  previous_sealed: Buffer | null;
  previous_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookSecretKey {
  site_id: string;
  adapter: string;
}

const columns = 'site_id, adapter, sealed, previous_sealed, previous_expires_at, created_at, updated_at';

const statements = preparedOnce((db) => ({
  find: db.prepare<WebhookSecretKey, WebhookSecretRow>(`SELECT ${columns} FROM webhook_secrets WHERE site_id = :site_id AND adapter = :adapter`),
  upsert: db.prepare<WebhookSecretRow>(
    `INSERT INTO webhook_secrets (${columns}) VALUES (:site_id, :adapter, :sealed, :previous_sealed, :previous_expires_at, :created_at, :updated_at)
     ON CONFLICT (site_id, adapter) DO UPDATE SET sealed = excluded.sealed, previous_sealed = excluded.previous_sealed,
       previous_expires_at = excluded.previous_expires_at, updated_at = excluded.updated_at`,
  ),
  deleteOfSite: db.prepare<[string]>('DELETE FROM webhook_secrets WHERE site_id = ?'),
}));

export function findWebhookSecretRow(db: Db, key: WebhookSecretKey): WebhookSecretRow | undefined {
  return statements(db).find.get(key);
}

/** Inserts the row, or replaces the secrets of an existing one (created_at is kept). */
export function upsertWebhookSecretRow(db: Db, row: WebhookSecretRow): void {
  statements(db).upsert.run(row);
}

/** Site deletion: the site's secrets go with it (registered in src/webhooks/routes.ts). */
export function deleteWebhookSecretsOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
