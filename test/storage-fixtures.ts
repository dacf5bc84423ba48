// Storage-level tests (below the HTTP layer): a database holding one site, and events enriched as the pipeline hands
// them to the writer.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { type Db, openDatabase } from '../src/db/open.ts';
import { enrichEvent } from '../src/ingest/enrich.ts';
import { makeTempDir } from './_setup.ts';

/** A new database at `path` (a fresh temp file by default) with workspace w1 and its site blog. */
export function openBlogDatabase(path = join(makeTempDir(), 'sightline.db')): Db {
  const db = openDatabase(path);
  const now = new Date().toISOString();
  db.prepare("INSERT INTO workspaces (id, slug, name, created_at, updated_at) VALUES ('w1', 'w1', 'W', ?, ?)").run(now, now);
  db.prepare("INSERT INTO sites (id, workspace_id, name, created_at) VALUES ('blog', 'w1', 'Blog', ?)").run(now);
  return db;
}

const chrome = { browser: 'Chrome', os: 'Windows', device_type: 'desktop', is_bot: false };

/** A pageview of site blog from Chrome on Windows, enriched. */
export function enrichedPageview(options: { anonId?: string; tsMs?: number; path?: string; referrer?: string | null } = {}) {
  const id = randomUUID();
  const tsMs = options.tsMs ?? Date.UTC(2026, 10, 2, 10);
  const event = {
    id,
    site_id: 'blog',
    anon_id: options.anonId ?? 'anon-1',
    ts: new Date(tsMs).toISOString(),
    type: 'pageview',
    url: `https://blog.example${options.path ?? '/a'}`,
    referrer: options.referrer ?? null,
  };
  return enrichEvent({
    siteId: 'blog',
    event: event as never,
    canonicalId: id,
    tsMs,
    revenueMinor: null,
    raw: JSON.stringify(event),
    visitor: { agent: chrome as never, geo: { country: null, region: null, city: null }, internal: false },
  });
}
