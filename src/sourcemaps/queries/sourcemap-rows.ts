// Stored source maps, one per (site, release, file); every statement names its site.
import type { Db } from '../../db/open.ts';
import { preparedOnce } from '../../db/statements.ts';

export interface SourcemapRow {
  site_id: string;
  release: string;
  file: string;
  /** Bytes of the map as uploaded. */
  size: number;
  sha256: string;
  /** Characters of its mappings (all sections): what decoding it costs. */
  mappings_length: number;
  map_gzip: Buffer;
  uploaded_at: string;
}

export interface SourcemapKey {
  site_id: string;
  release: string;
  file: string;
}

export type SourcemapDigestRow = Pick<SourcemapRow, 'sha256' | 'size' | 'mappings_length'>;

const statements = preparedOnce((db) => ({
  upsert: db.prepare<SourcemapRow>(
    `INSERT INTO sourcemaps (site_id, release, file, size, sha256, mappings_length, map_gzip, uploaded_at)
     VALUES (:site_id, :release, :file, :size, :sha256, :mappings_length, :map_gzip, :uploaded_at)
     ON CONFLICT (site_id, release, file) DO UPDATE SET size = excluded.size, sha256 = excluded.sha256,
       mappings_length = excluded.mappings_length, map_gzip = excluded.map_gzip, uploaded_at = excluded.uploaded_at`,
  ),
  digest: db.prepare<SourcemapKey, SourcemapDigestRow>('SELECT sha256, size, mappings_length FROM sourcemaps WHERE site_id = :site_id AND release = :release AND file = :file'),
  content: db.prepare<SourcemapKey & { sha256: string }, { map_gzip: Buffer }>(
    'SELECT map_gzip FROM sourcemaps WHERE site_id = :site_id AND release = :release AND file = :file AND sha256 = :sha256',
  ),
  deleteOfSite: db.prepare<[string]>('DELETE FROM sourcemaps WHERE site_id = ?'),
}));

/** Inserts the map, or replaces the one of the same site, release and file. */
export function upsertSourcemap(db: Db, row: SourcemapRow): void {
  statements(db).upsert.run(row);
}

/** What identifies the stored map's content (the cache key of its parsed form), without reading the map. */
export function findSourcemapDigest(db: Db, key: SourcemapKey): SourcemapDigestRow | undefined {
  return statements(db).digest.get(key);
}

/** The compressed map, if the stored one still has that digest (a new upload may have replaced it since). */
export function readSourcemapContent(db: Db, key: SourcemapKey, sha256: string): Buffer | undefined {
  return statements(db).content.get({ ...key, sha256 })?.map_gzip;
}

export function deleteSourcemapsOfSite(db: Db, siteId: string): void {
  statements(db).deleteOfSite.run(siteId);
}
