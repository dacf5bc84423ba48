-- Sightline's whole schema. It is applied at start inside one transaction per version and recorded in
-- PRAGMA user_version. Evolution only appends: add a new "-- @version N" section at the end; never edit a
-- section that has shipped (see the spec's "Storage and wire").

-- @version 1: workspaces, sites, API keys, audit log

CREATE TABLE workspaces (
  id          TEXT PRIMARY KEY,           -- UUID
  slug        TEXT NOT NULL UNIQUE,       -- ^[a-z][a-z0-9-]{0,63}$, never renamed
  name        TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

CREATE TABLE sites (
  id            TEXT PRIMARY KEY,         -- ^[A-Za-z0-9_-]{1,64}$, also the legacy ingest bearer
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  name          TEXT NOT NULL,
  created_at    TEXT NOT NULL
);
CREATE INDEX sites_by_workspace ON sites (workspace_id, created_at);

CREATE TABLE api_keys (
  id            TEXT PRIMARY KEY,         -- UUID
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  label         TEXT NOT NULL,
  scopes        TEXT NOT NULL,            -- JSON array of scope names
  key_hash      BLOB NOT NULL UNIQUE,     -- SHA-256 of the plaintext; the plaintext is never stored
  created_at    TEXT NOT NULL,
  last_used_at  TEXT,
  revoked_at    TEXT
);
CREATE INDEX api_keys_by_workspace ON api_keys (workspace_id, created_at);

CREATE TABLE audit_log (
  id            TEXT PRIMARY KEY,         -- UUID
  workspace_id  TEXT NOT NULL,
  actor_kind    TEXT NOT NULL CHECK (actor_kind IN ('admin', 'apiKey', 'system')),
  actor_id      TEXT,
  action        TEXT NOT NULL,
  target        TEXT,
  metadata      TEXT NOT NULL DEFAULT '{}',
  ts            TEXT NOT NULL             -- strictly increasing per workspace, so an ISO cursor never skips a row
);
CREATE INDEX audit_log_by_workspace_ts ON audit_log (workspace_id, ts);

-- The audit log is append-only at the storage level, whoever holds the database handle.
CREATE TRIGGER audit_log_refuses_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_refuses_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

-- @version 2: events, visits, identities, dead-letter queue

-- One row per stored event. raw is the exact JSON text received; every other column is derived from it.
CREATE TABLE events (
  seq               INTEGER PRIMARY KEY,    -- ingest order (list-v2 and stream cursors follow it)
  site_id           TEXT NOT NULL,
  id                TEXT NOT NULL,          -- client UUID, lower case; (site_id, id) is the dedup key
  dedup_key         INTEGER NOT NULL,       -- first 52 bits of id: a small integer index to find repeats
  type              TEXT NOT NULL,
  ts                INTEGER NOT NULL,       -- event time, epoch ms
  received_at       INTEGER NOT NULL,       -- commit time, epoch ms
  anon_id           TEXT NOT NULL,
  user_id           TEXT,
  url               TEXT,
  path              TEXT,
  query             TEXT,
  referrer          TEXT,
  referrer_host     TEXT,
  source            TEXT NOT NULL,
  utm_source        TEXT,
  utm_medium        TEXT,
  utm_campaign      TEXT,
  utm_term          TEXT,
  utm_content       TEXT,
  browser           TEXT,
  os                TEXT,
  device_type       TEXT,
  country           TEXT,
  region            TEXT,
  city              TEXT,
  is_bot            INTEGER NOT NULL DEFAULT 0,
  is_internal       INTEGER NOT NULL DEFAULT 0,
  props             TEXT,                   -- JSON object
  revenue_minor     INTEGER,                -- exact, in minor units of revenue_currency
  revenue_currency  TEXT,
  raw               TEXT NOT NULL
);
CREATE INDEX events_by_dedup_key ON events (dedup_key);
CREATE INDEX events_by_site_ts ON events (site_id, ts);
CREATE INDEX events_by_site_anon ON events (site_id, anon_id, ts);

-- Visits: maximal runs of one anon_id's events on one site with gaps under 30 minutes (CONTRACT section 4),
-- kept exact under late and out-of-order arrival. Bots have no visits; internal traffic has its own.
CREATE TABLE sessions (
  id                INTEGER PRIMARY KEY,
  site_id           TEXT NOT NULL,
  anon_id           TEXT NOT NULL,
  is_internal       INTEGER NOT NULL,
  start_ts          INTEGER NOT NULL,
  end_ts            INTEGER NOT NULL,
  events            INTEGER NOT NULL,
  pageviews         INTEGER NOT NULL,
  -- the first event, (ts, seq) order, decides the visit's acquisition and entry
  entry_ts          INTEGER NOT NULL,
  entry_seq         INTEGER NOT NULL,
  entry_path        TEXT,
  source            TEXT NOT NULL,
  referrer_host     TEXT,
  utm_source        TEXT,
  utm_medium        TEXT,
  utm_campaign      TEXT,
  utm_term          TEXT,
  utm_content       TEXT,
  browser           TEXT,
  os                TEXT,
  device_type       TEXT,
  country           TEXT,
  region            TEXT,
  city              TEXT,
  -- the last pageview, (ts, seq) order
  exit_ts           INTEGER,
  exit_seq          INTEGER,
  exit_path         TEXT
);
CREATE INDEX sessions_by_visitor ON sessions (site_id, anon_id, is_internal, start_ts);
CREATE INDEX sessions_by_site_start ON sessions (site_id, start_ts);

-- Every (site, anon_id) → user_id binding ever seen; the timeline, funnels and attribution merge through it.
CREATE TABLE identities (
  site_id     TEXT NOT NULL,
  anon_id     TEXT NOT NULL,
  user_id     TEXT NOT NULL,
  first_seen  INTEGER NOT NULL,
  last_seen   INTEGER NOT NULL,
  PRIMARY KEY (site_id, anon_id, user_id)
) WITHOUT ROWID;
CREATE INDEX identities_by_user ON identities (site_id, user_id);

-- Quarantined events (SCHEMA_MODE=quarantine), replayable through the ingest pipeline.
CREATE TABLE dlq (
  id           TEXT PRIMARY KEY,            -- UUID
  site_id      TEXT NOT NULL,
  payload      TEXT NOT NULL,               -- the exact JSON text received
  error        TEXT NOT NULL,               -- JSON array of { path, message }
  context      TEXT NOT NULL,               -- enrichment inputs for replay (channel, user agent, geo); never the IP
  received_at  TEXT NOT NULL                -- ISO; strictly increasing per site so the cursor never skips a row
);
CREATE INDEX dlq_by_site_received ON dlq (site_id, received_at);

-- INSERT OR REPLACE would delete-and-insert without firing the delete trigger: refuse reusing an id too.
CREATE TRIGGER audit_log_refuses_replace BEFORE INSERT ON audit_log
WHEN EXISTS (SELECT 1 FROM audit_log WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

-- @version 3: report rollups (exact, maintained in the transaction that stores the events), cursor secret

-- Each visitor (anon_id) gets a dense number per workspace, so per-period visitor sets are small bitmaps that a
-- report unions exactly; an anon_id seen on two sites of a workspace keeps one number.
CREATE TABLE report_visitors (
  site_id       TEXT NOT NULL,
  anon_id       TEXT NOT NULL,
  workspace_id  TEXT NOT NULL,
  vid           INTEGER NOT NULL,
  PRIMARY KEY (site_id, anon_id)
) WITHOUT ROWID;
CREATE INDEX report_visitors_by_workspace ON report_visitors (workspace_id, anon_id);

CREATE TABLE report_visitor_numbers (
  workspace_id  TEXT PRIMARY KEY,
  next_vid      INTEGER NOT NULL
) WITHOUT ROWID;

-- Dimension values (a path, a source, a campaign…) as small integers per site and dimension.
CREATE TABLE report_values (
  site_id   TEXT NOT NULL,
  dim       INTEGER NOT NULL,
  value     TEXT NOT NULL,
  value_id  INTEGER NOT NULL,
  PRIMARY KEY (site_id, dim, value)
) WITHOUT ROWID;
CREATE UNIQUE INDEX report_values_by_id ON report_values (site_id, dim, value_id);

-- Counters per (site, dimension, grain: 0 day / 1 month, period, internal traffic or not): one row per shard of
-- 128 value ids, holding each value's counters in a compact blob (see src/reports/rollup/counter-shard.ts).
CREATE TABLE report_counters (
  site_id   TEXT NOT NULL,
  dim       INTEGER NOT NULL,
  grain     INTEGER NOT NULL,
  period    INTEGER NOT NULL,
  internal  INTEGER NOT NULL,
  shard     INTEGER NOT NULL,
  entries   BLOB NOT NULL,
  PRIMARY KEY (site_id, dim, internal, grain, period, shard)
) WITHOUT ROWID;

-- Exact visitor sets per (site, dimension value, grain, period, internal): one container per 65,536 visitor
-- numbers, a sorted array of 16-bit values or an 8 KiB bitmap (see src/reports/rollup/visitor-container.ts).
CREATE TABLE report_visitor_sets (
  site_id   TEXT NOT NULL,
  dim       INTEGER NOT NULL,
  grain     INTEGER NOT NULL,
  period    INTEGER NOT NULL,
  internal  INTEGER NOT NULL,
  value_id  INTEGER NOT NULL,
  chunk     INTEGER NOT NULL,
  members   BLOB NOT NULL,
  PRIMARY KEY (site_id, dim, value_id, internal, grain, period, chunk)
) WITHOUT ROWID;

-- Revenue per campaign and currency, exact in minor units.
CREATE TABLE report_revenue (
  site_id       TEXT NOT NULL,
  dim           INTEGER NOT NULL,
  grain         INTEGER NOT NULL,
  period        INTEGER NOT NULL,
  internal      INTEGER NOT NULL,
  value_id      INTEGER NOT NULL,
  currency      TEXT NOT NULL,
  amount_minor  INTEGER NOT NULL,
  PRIMARY KEY (site_id, dim, internal, grain, period, value_id, currency)
) WITHOUT ROWID;

-- Freshness: the newest committed event of each site.
CREATE TABLE report_sites (
  site_id          TEXT PRIMARY KEY,
  max_seq          INTEGER NOT NULL,
  max_received_at  INTEGER NOT NULL
) WITHOUT ROWID;

-- Secrets and flags of the reports domain: the cursor signing key, a pending backfill of older events.
CREATE TABLE report_state (
  name   TEXT PRIMARY KEY,
  value  BLOB NOT NULL
) WITHOUT ROWID;
INSERT INTO report_state (name, value) SELECT 'backfill_needed', 1 WHERE EXISTS (SELECT 1 FROM events);

-- Event lists and streams read one site's events in ingest order.
CREATE INDEX events_by_site_seq ON events (site_id, seq);

-- @version 4: staged rollup changes. A group commit adds what its events change to small additive rows at day grain
-- (months are derived) instead of rewriting counter shards and visitor containers in every commit; the writer
-- folds them into the shards and sets when idle (src/reports/rollup/fold-pending.ts), oldest key range first.
-- Reports read shards and staged rows together, so they stay exact.
CREATE TABLE report_pending_counters (
  site_id          TEXT NOT NULL,
  dim              INTEGER NOT NULL,
  internal         INTEGER NOT NULL,
  day              INTEGER NOT NULL,
  value_id         INTEGER NOT NULL,
  events           INTEGER NOT NULL,
  pageviews        INTEGER NOT NULL,
  visits           INTEGER NOT NULL,
  bounces          INTEGER NOT NULL,
  duration_ms      INTEGER NOT NULL,
  visit_pageviews  INTEGER NOT NULL,
  visit_events     INTEGER NOT NULL,
  exits            INTEGER NOT NULL,
  conversions      INTEGER NOT NULL,
  PRIMARY KEY (site_id, dim, internal, day, value_id)
) WITHOUT ROWID;

CREATE TABLE report_pending_visitors (
  site_id   TEXT NOT NULL,
  dim       INTEGER NOT NULL,
  value_id  INTEGER NOT NULL,
  internal  INTEGER NOT NULL,
  day       INTEGER NOT NULL,
  vid       INTEGER NOT NULL,
  PRIMARY KEY (site_id, dim, value_id, internal, day, vid)
) WITHOUT ROWID;

-- Visitor sets are kept by day only from this version on (a report unions the days it covers): folding month sets
-- cost as much as the days for little read benefit. Month counters stay.
DELETE FROM report_visitor_sets WHERE grain = 1;

-- @version 5: the staging log. A group commit appends one row per site holding everything its events change in
-- the rollups (JSON, see src/reports/rollup/staging-log.ts) instead of upserting many rows of the staged tables:
-- a commit then writes one or two pages for the rollups instead of dozens. The writer moves log rows into the
-- staged tables when idle, many commits at a time, oldest first; reports read the log on top of them.
CREATE TABLE report_staging_log (
  seq      INTEGER PRIMARY KEY,
  site_id  TEXT NOT NULL,
  body     TEXT NOT NULL
);

-- @version 6: staging-log removals in a column of their own. Moving the log skips an addition that a later row
-- takes back, so a partly moved log never shows a visitor whose removal is still waiting in the log; the partial
-- index finds those later rows (few: removals are rare) without reading every body.
ALTER TABLE report_staging_log ADD COLUMN removals TEXT;
UPDATE report_staging_log
SET removals = CASE WHEN json_array_length(body, '$.r') > 0 THEN json_extract(body, '$.r') END,
    body = json_remove(body, '$.r');
CREATE INDEX report_staging_log_removals ON report_staging_log (site_id, seq) WHERE removals IS NOT NULL;

-- @version 7: the write path splits in two (docs/architecture.md, "The write path"). The event log moves to its own
-- file, events.db, attached to every connection as `eventlog`: the ingest writer is its only writer, so an
-- acknowledging commit never waits for the projector, which writes what is derived from the events (visits,
-- identities, visitor numbers, rollups) to this file in large batches from a saved position (projector_state).
-- The events table keeps raw verbatim and stores only the columns reads filter or group by: the client's id, url,
-- referrer and props are virtual columns read from raw (no bytes stored). AUTOINCREMENT: a seq is never reused after the newest events are deleted, so list and stream
-- cursors and the projector's position never skip an event. Everything derived is dropped and projected again from
-- the events (the staging log and staged rows of versions 4-6 go with the write listeners that kept them).
-- Two steps, each writing one file (SQLite commits attached WAL files one at a time): the event log is filled and
-- committed before anything is dropped from sightline.db, and a crash between steps re-runs them (IF NOT EXISTS,
-- OR IGNORE).
CREATE TABLE IF NOT EXISTS eventlog.events (
  seq               INTEGER PRIMARY KEY AUTOINCREMENT,  -- ingest order (list-v2 and stream cursors, the projector)
  site_id           TEXT NOT NULL,
  -- The canonical id only where SQL would read raw's otherwise (a repeated "id" key: JSON.parse, which the collector
  -- validates with, keeps the last, json_extract the first; or raw SQLite cannot parse); NULL for every other event.
  id_override       TEXT,
  dedup_key         INTEGER NOT NULL,       -- first 52 bits of id: a small integer index to find repeats
  type              TEXT NOT NULL,
  ts                INTEGER NOT NULL,       -- event time, epoch ms
  received_at       INTEGER NOT NULL,       -- commit time, epoch ms
  anon_id           TEXT NOT NULL,
  user_id           TEXT,
  path              TEXT,
  query             TEXT,
  source            TEXT NOT NULL,
  utm_source        TEXT,
  utm_medium        TEXT,
  utm_campaign      TEXT,
  browser           TEXT,
  os                TEXT,
  device_type       TEXT,
  country           TEXT,
  region            TEXT,
  city              TEXT,
  is_bot            INTEGER NOT NULL DEFAULT 0,
  is_internal       INTEGER NOT NULL DEFAULT 0,
  revenue_minor     INTEGER,                -- exact, in minor units of revenue_currency
  revenue_currency  TEXT,
  raw               TEXT NOT NULL,          -- the exact JSON text received
  -- Virtual: computed from raw when read, never stored. json_valid first: raw is whatever JSON.parse accepted, and a
  -- repeated key may hold a value SQLite's parser refuses (nested over 1,000 levels) where JSON.parse kept the last.
  id                TEXT GENERATED ALWAYS AS (coalesce(id_override, CASE WHEN json_valid(raw) THEN lower(json_extract(raw, '$.id')) END)) VIRTUAL,  -- client UUID, lower case; (site_id, id) is the dedup key
  url               TEXT GENERATED ALWAYS AS (CASE WHEN json_valid(raw) THEN json_extract(raw, '$.url') END) VIRTUAL,
  referrer          TEXT GENERATED ALWAYS AS (CASE WHEN json_valid(raw) THEN json_extract(raw, '$.referrer') END) VIRTUAL,
  props             TEXT GENERATED ALWAYS AS (CASE WHEN json_valid(raw) THEN json_extract(raw, '$.props') END) VIRTUAL
);
INSERT OR IGNORE INTO eventlog.events (seq, site_id, id_override, dedup_key, type, ts, received_at, anon_id, user_id, path, query, source,
  utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, is_bot, is_internal,
  revenue_minor, revenue_currency, raw)
SELECT seq, site_id, CASE WHEN json_valid(raw) THEN CASE WHEN lower(json_extract(raw, '$.id')) = id THEN NULL ELSE id END ELSE id END, dedup_key, type, ts, received_at, anon_id, user_id, path, query, source, utm_source,
  utm_medium, utm_campaign, browser, os, device_type, country, region, city, is_bot, is_internal, revenue_minor,
  revenue_currency, raw
FROM main.events ORDER BY seq;
CREATE INDEX IF NOT EXISTS eventlog.events_by_dedup_key ON events (dedup_key);
CREATE INDEX IF NOT EXISTS eventlog.events_by_site_seq ON events (site_id, seq);
CREATE INDEX IF NOT EXISTS eventlog.events_by_site_ts ON events (site_id, ts);
CREATE INDEX IF NOT EXISTS eventlog.events_by_site_anon ON events (site_id, anon_id, ts);

-- Quarantined events are written in the acknowledging transaction, so they live beside the events.
CREATE TABLE IF NOT EXISTS eventlog.dlq (
  id           TEXT PRIMARY KEY,            -- UUID
  site_id      TEXT NOT NULL,
  payload      TEXT NOT NULL,               -- the exact JSON text received
  error        TEXT NOT NULL,               -- JSON array of { path, message }
  context      TEXT NOT NULL,               -- enrichment inputs for replay (channel, user agent, geo); never the IP
  received_at  TEXT NOT NULL                -- ISO; strictly increasing per site so the cursor never skips a row
);
INSERT OR IGNORE INTO eventlog.dlq (id, site_id, payload, error, context, received_at)
SELECT id, site_id, payload, error, context, received_at FROM main.dlq;
CREATE INDEX IF NOT EXISTS eventlog.dlq_by_site_received ON dlq (site_id, received_at);

-- @commit: the event log holds every event and quarantined event; sightline.db lets go of its copies.
DROP TABLE main.events;
DROP TABLE main.dlq;

DROP TABLE report_staging_log;
DROP TABLE report_pending_counters;
DROP TABLE report_pending_visitors;
DROP TABLE report_sites;
DELETE FROM report_state WHERE name = 'backfill_needed';

-- Visits without the columns no read used (the entry's time, always start_ts; referrer host, utm_term, utm_content)
-- and without the unused (site_id, start_ts) index.
DROP TABLE sessions;
CREATE TABLE sessions (
  id                INTEGER PRIMARY KEY,
  site_id           TEXT NOT NULL,
  anon_id           TEXT NOT NULL,
  is_internal       INTEGER NOT NULL,
  start_ts          INTEGER NOT NULL,
  end_ts            INTEGER NOT NULL,
  events            INTEGER NOT NULL,
  pageviews         INTEGER NOT NULL,
  entry_seq         INTEGER NOT NULL,       -- the first event in (ts, seq) order: its ts is start_ts
  entry_path        TEXT,
  source            TEXT NOT NULL,
  utm_source        TEXT,
  utm_medium        TEXT,
  utm_campaign      TEXT,
  browser           TEXT,
  os                TEXT,
  device_type       TEXT,
  country           TEXT,
  region            TEXT,
  city              TEXT,
  exit_ts           INTEGER,
  exit_seq          INTEGER,
  exit_path         TEXT
);
CREATE INDEX sessions_by_visitor ON sessions (site_id, anon_id, is_internal, start_ts);

DELETE FROM identities;
-- Visitor numbers without the workspace column and its index (two copies of a 36-character id per visitor): the
-- number an anon_id already has in the workspace is found on the workspace's other sites (a handful of lookups, only
-- for a visitor the site has not seen).
DROP TABLE report_visitors;
CREATE TABLE report_visitors (
  site_id  TEXT NOT NULL,
  anon_id  TEXT NOT NULL,
  vid      INTEGER NOT NULL,
  PRIMARY KEY (site_id, anon_id)
) WITHOUT ROWID;
DELETE FROM report_visitor_numbers;
DELETE FROM report_values;
DELETE FROM report_counters;
DELETE FROM report_visitor_sets;
DELETE FROM report_revenue;

-- How far the projector has got: every event with seq <= position is counted in the derived tables. Written in
-- the same transaction as the changes it counts, so a crash resumes exactly.
CREATE TABLE projector_state (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  position     INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);
INSERT INTO projector_state (id, position, updated_at) VALUES (1, 0, 0);

-- @version 8: the index of a visitor's events leaves the acknowledging commit. events_by_site_anon cost every
-- commit a random page per event (and about 38 bytes per event); the projector now keeps (visitor number, ts, seq)
-- of each event it reads in sightline.db, written with its batches, and reads of one visitor's events go through it
-- up to its position (a timeline adds the event log's tail past it). Everything derived is projected again, so
-- every event gets its row (bots too: they get visitor numbers from now on). Two steps, one file each (see 7).
CREATE TABLE IF NOT EXISTS visitor_events (
  vid  INTEGER NOT NULL,   -- report_visitors.vid: shared by the sites of a workspace, so reads check the event's site
  ts   INTEGER NOT NULL,   -- the event's ts, for reading a time range in order
  seq  INTEGER NOT NULL,   -- eventlog.events.seq
  PRIMARY KEY (vid, ts, seq)
) WITHOUT ROWID;
DELETE FROM visitor_events;
DELETE FROM sessions;
DELETE FROM identities;
DELETE FROM report_visitors;
DELETE FROM report_visitor_numbers;
DELETE FROM report_values;
DELETE FROM report_counters;
DELETE FROM report_visitor_sets;
DELETE FROM report_revenue;
UPDATE projector_state SET position = 0;
-- @commit: derived data is empty and the projector starts from the first event; the event log drops its index.
DROP INDEX IF EXISTS eventlog.events_by_site_anon;

-- @version 9: the event log stops storing twice what raw already holds. anon_id and query become virtual columns
-- read from raw (anon_id from its "anon_id", query from its "url" between "?" and "#"), with an override column
-- that holds the canonical value only where that reading would differ (a repeated key, a URL the collector
-- normalised): the writer reads the new row back and fills it (src/event-store/queries/event-rows.ts). The index of
-- a site's events in ingest order is on site_id alone: every index ends with the rowid, which is seq, so
-- (site_id, seq) stored seq twice. About 35 bytes less per event. The table is rebuilt once; the AUTOINCREMENT
-- high-water mark is carried over so no seq is ever reused.
CREATE TABLE eventlog.events_v9 (
  seq               INTEGER PRIMARY KEY AUTOINCREMENT,  -- ingest order (list-v2 and stream cursors, the projector)
  site_id           TEXT NOT NULL,
  -- The canonical id, anon_id and query only where reading raw would give another value (see the virtual columns).
  -- query_override '' stands for "no query" where the URL read from raw seems to have one.
  id_override       TEXT,
  anon_id_override  TEXT,
  query_override    TEXT,
  dedup_key         INTEGER NOT NULL,       -- first 52 bits of id: a small integer index to find repeats
  type              TEXT NOT NULL,
  ts                INTEGER NOT NULL,       -- event time, epoch ms
  received_at       INTEGER NOT NULL,       -- commit time, epoch ms
  user_id           TEXT,
  path              TEXT,
  source            TEXT NOT NULL,
  utm_source        TEXT,
  utm_medium        TEXT,
  utm_campaign      TEXT,
  browser           TEXT,
  os                TEXT,
  device_type       TEXT,
  country           TEXT,
  region            TEXT,
  city              TEXT,
  is_bot            INTEGER NOT NULL DEFAULT 0,
  is_internal       INTEGER NOT NULL DEFAULT 0,
  revenue_minor     INTEGER,                -- exact, in minor units of revenue_currency
  revenue_currency  TEXT,
  raw               TEXT NOT NULL,          -- the exact JSON text received
  -- Virtual: computed from raw when read, never stored. json_valid first: raw is whatever JSON.parse accepted, and a
  -- repeated key may hold a value SQLite's parser refuses (nested over 1,000 levels) where JSON.parse kept the last.
  id                TEXT GENERATED ALWAYS AS (coalesce(id_override, CASE WHEN json_valid(raw) THEN lower(json_extract(raw, '$.id')) END)) VIRTUAL,  -- client UUID, lower case; (site_id, id) is the dedup key
  anon_id           TEXT GENERATED ALWAYS AS (coalesce(anon_id_override, CASE WHEN json_valid(raw) THEN json_extract(raw, '$.anon_id') END)) VIRTUAL,
  url               TEXT GENERATED ALWAYS AS (CASE WHEN json_valid(raw) THEN json_extract(raw, '$.url') END) VIRTUAL,
  referrer          TEXT GENERATED ALWAYS AS (CASE WHEN json_valid(raw) THEN json_extract(raw, '$.referrer') END) VIRTUAL,
  props             TEXT GENERATED ALWAYS AS (CASE WHEN json_valid(raw) THEN json_extract(raw, '$.props') END) VIRTUAL,
  -- The URL's query string: after the first "?" unless a "#" comes before it, up to the next "#"; NULL when empty.
  query             TEXT GENERATED ALWAYS AS (CASE
    WHEN query_override IS NOT NULL THEN nullif(query_override, '')
    WHEN instr(url, '?') = 0 OR instr(url, '#') BETWEEN 1 AND instr(url, '?') THEN NULL
    WHEN instr(url, '#') = 0 THEN nullif(substr(url, instr(url, '?') + 1), '')
    ELSE nullif(substr(url, instr(url, '?') + 1, instr(url, '#') - instr(url, '?') - 1), '') END) VIRTUAL
);
INSERT INTO eventlog.events_v9 (seq, site_id, id_override, dedup_key, type, ts, received_at, user_id, path, source, utm_source,
  utm_medium, utm_campaign, browser, os, device_type, country, region, city, is_bot, is_internal, revenue_minor,
  revenue_currency, raw)
SELECT seq, site_id, id_override, dedup_key, type, ts, received_at, user_id, path, source, utm_source, utm_medium,
  utm_campaign, browser, os, device_type, country, region, city, is_bot, is_internal, revenue_minor, revenue_currency, raw
FROM eventlog.events ORDER BY seq;
-- Overrides where the new virtual columns would read another value than the one stored (compared row by row).
UPDATE eventlog.events_v9 SET anon_id_override = old.anon_id
FROM eventlog.events AS old WHERE old.seq = events_v9.seq AND events_v9.anon_id IS NOT old.anon_id;
UPDATE eventlog.events_v9 SET query_override = coalesce(old.query, '')
FROM eventlog.events AS old WHERE old.seq = events_v9.seq AND events_v9.query IS NOT old.query;
-- The high-water mark: the newest events may have been deleted, and their seq must stay used.
UPDATE eventlog.sqlite_sequence SET seq = max(seq, (SELECT seq FROM eventlog.sqlite_sequence WHERE name = 'events'))
WHERE name = 'events_v9';
INSERT INTO eventlog.sqlite_sequence (name, seq)
SELECT 'events_v9', seq FROM eventlog.sqlite_sequence
WHERE name = 'events' AND NOT EXISTS (SELECT 1 FROM eventlog.sqlite_sequence WHERE name = 'events_v9');
DROP TABLE eventlog.events;
ALTER TABLE eventlog.events_v9 RENAME TO events;
CREATE INDEX eventlog.events_by_dedup_key ON events (dedup_key);
CREATE INDEX eventlog.events_by_site ON events (site_id);
CREATE INDEX eventlog.events_by_site_ts ON events (site_id, ts);

-- @version 10: marketing spend per day, source, medium and campaign (src/spend/), kept exactly as integer minor
-- units of its ISO 4217 currency. Written by the spend endpoints and `sightline spend import`; read by ROI.
CREATE TABLE spend (
  id            TEXT PRIMARY KEY,                      -- UUID
  workspace_id  TEXT NOT NULL REFERENCES workspaces (id),
  site_id       TEXT,                                  -- optional: a site of the workspace (removed with the site)
  day           TEXT NOT NULL,                         -- YYYY-MM-DD, UTC
  source        TEXT NOT NULL,
  medium        TEXT,
  campaign      TEXT,
  amount_minor  INTEGER NOT NULL CHECK (amount_minor >= 0),
  currency      TEXT NOT NULL,                         -- ISO 4217 code; amount_minor uses its exponent
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL
);
CREATE INDEX spend_by_workspace_day ON spend (workspace_id, day, id);

-- @version 11: inbound webhook secrets, one per (site, adapter) (src/webhooks/). Each is used to verify an HMAC, so
-- it cannot be hashed: it is sealed with AES-256-GCM under the key file DATA_DIR/secrets.key (never in this
-- database). After a rotation the previous secret is still accepted until previous_expires_at (one hour).
CREATE TABLE webhook_secrets (
  site_id              TEXT NOT NULL REFERENCES sites (id),
  adapter              TEXT NOT NULL,           -- 'stripe'
  sealed               BLOB NOT NULL,           -- format byte, 12-byte nonce, 16-byte tag, ciphertext
  previous_sealed      BLOB,                    -- the secret before the last rotation
  previous_expires_at  TEXT,                    -- ISO; the previous secret is refused from then on
  created_at           TEXT NOT NULL,
  updated_at           TEXT NOT NULL,
  PRIMARY KEY (site_id, adapter)
);

-- @version 12: the consent banner of each site (src/consent/) and the source maps uploaded per site, release and
-- file (src/sourcemaps/), which list-v2 reads to resolve the stacks of error events. Both leave with their site.
CREATE TABLE consent_banners (
  site_id           TEXT PRIMARY KEY,
  config_version    INTEGER NOT NULL CHECK (config_version >= 1),   -- bumped by every save; 0 means never saved
  consent_revision  INTEGER NOT NULL CHECK (consent_revision >= 1), -- bumped by a save with request_reconsent
  config            TEXT NOT NULL,                                 -- the checked config, JSON
  updated_at        TEXT NOT NULL
);
-- The answers of recent saves by idempotency key, so a repeated save replays its answer instead of saving twice.
CREATE TABLE consent_banner_saves (
  site_id          TEXT NOT NULL,
  idempotency_key  TEXT NOT NULL,
  request_sha256   TEXT NOT NULL,   -- of the checked request, to tell a replay from a reuse of the key
  config_version   INTEGER NOT NULL, -- the version this save made (old saves are pruned by it)
  answer           TEXT NOT NULL,   -- the JSON answer sent
  PRIMARY KEY (site_id, idempotency_key)
);
CREATE INDEX consent_banner_saves_by_version ON consent_banner_saves (site_id, config_version);
CREATE TABLE sourcemaps (
  site_id      TEXT NOT NULL,
  release      TEXT NOT NULL,       -- ^[A-Za-z0-9._-]{1,128}$
  file         TEXT NOT NULL,       -- base name of the .js file the map describes
  size         INTEGER NOT NULL,    -- bytes of the map as uploaded (decoded from base64)
  sha256       TEXT NOT NULL,       -- of those bytes: parsed maps are cached by it
  mappings_length INTEGER NOT NULL, -- characters of its mappings (all sections): what decoding it will cost
  map_gzip     BLOB NOT NULL,       -- those bytes, gzip-compressed
  uploaded_at  TEXT NOT NULL,
  UNIQUE (site_id, release, file)
);

-- @version 13: cookieless visitors (src/visitors/, docs/tracker.md). A site's `cookieless` setting: on for the sites
-- created from this version on (the create default), off for the sites that existed before, which keep their
-- behaviour. On a cookieless site a browser event without anon_id gets one derived by the collector: an HMAC-SHA256
-- of the site, the client IP and the user agent, keyed with the day's random salt. Only today's and yesterday's
-- salts are kept; older ones are deleted, after which nobody can recompute those days' ids. The IP is never stored.
ALTER TABLE sites ADD COLUMN cookieless INTEGER NOT NULL DEFAULT 0 CHECK (cookieless IN (0, 1));
CREATE TABLE visitor_salts (
  day         TEXT PRIMARY KEY,   -- YYYY-MM-DD, UTC: the day whose events the salt keys
  salt        BLOB NOT NULL,      -- 32 random bytes
  created_at  TEXT NOT NULL
);

-- @version 14: GDPR and retention (docs/gdpr-and-retention.md). A site's retention period in whole UTC days (NULL:
-- its events are kept forever, the default), and how far the purge has gone on each site: events of days before
-- purged_before were deleted while their rollups stay, so a rebuild of everything derived must keep those rollups
-- (src/projector/reconcile.ts).
ALTER TABLE sites ADD COLUMN retention_days INTEGER CHECK (retention_days IS NULL OR retention_days BETWEEN 1 AND 3650);
CREATE TABLE retention_state (
  site_id        TEXT PRIMARY KEY,
  purged_before  INTEGER NOT NULL,   -- a day number (days since 1970-01-01, UTC)
  purged_at      INTEGER NOT NULL    -- epoch ms of the last purge batch
) WITHOUT ROWID;

-- @version 15: the automation bridge (src/integrations/). Inbound lead signals, recorded once per idempotency key;
-- outbound webhook endpoints (their signing secret encrypted with AES-256-GCM under DATA_DIR/secrets.key);
-- the outbox, written in the transaction of the change it announces (a bridge action's insert, a projector batch),
-- and the history of every delivery attempt.
CREATE TABLE bridge_actions (
  id               TEXT PRIMARY KEY,                   -- UUID
  workspace_id     TEXT NOT NULL REFERENCES workspaces (id),
  idempotency_key  TEXT NOT NULL,
  lead_id          TEXT NOT NULL,                      -- a user_id seen on one of the workspace's sites
  action           TEXT NOT NULL,
  signal           TEXT NOT NULL,
  key_id           TEXT,                               -- the API key that recorded it (null: the admin token)
  recorded_at      TEXT NOT NULL,
  UNIQUE (workspace_id, idempotency_key)
);
CREATE TABLE webhook_endpoints (
  id                TEXT PRIMARY KEY,                  -- UUID
  workspace_id      TEXT NOT NULL REFERENCES workspaces (id),
  url               TEXT NOT NULL,
  description       TEXT,
  event_types       TEXT NOT NULL,                     -- JSON array of event type names
  secret_sealed     BLOB NOT NULL,                     -- AES-256-GCM: format byte, 12-byte nonce, 16-byte tag, ciphertext
  status            TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
  disabled_reason   TEXT,                              -- 'gone' (the receiver answered 410) or 'operator'
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL
);
CREATE INDEX webhook_endpoints_by_workspace ON webhook_endpoints (workspace_id, created_at, id);
CREATE TABLE webhook_outbox (
  id               TEXT PRIMARY KEY,                   -- the webhook-id: the same on every attempt
  endpoint_id      TEXT NOT NULL REFERENCES webhook_endpoints (id),
  type             TEXT NOT NULL,
  body             TEXT NOT NULL,                      -- the exact JSON text signed and sent
  created_at       TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  max_attempts     INTEGER NOT NULL,
  next_attempt_at  INTEGER NOT NULL                    -- epoch ms
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_outbox_by_endpoint ON webhook_outbox (endpoint_id, created_at, id);
CREATE TABLE webhook_attempts (
  id                INTEGER PRIMARY KEY,
  outbox_id         TEXT NOT NULL REFERENCES webhook_outbox (id),
  attempted_at      TEXT NOT NULL,
  outcome           TEXT NOT NULL,                     -- delivered, http_error, redirect, timeout, network_error, address_refused, gone
  status_code       INTEGER,
  latency_ms        INTEGER NOT NULL,
  response_excerpt  TEXT                               -- at most 1 KiB of the answer's body, well-formed UTF-8
);
CREATE INDEX webhook_attempts_by_outbox ON webhook_attempts (outbox_id, id);

-- @version 16: the admin UI's sign-in sessions and share links (src/ui/). Only SHA-256 digests of their random tokens
-- are stored. A session stands for the credential it was exchanged for: the admin token (its digest is kept, so
-- changing ADMIN_TOKEN ends those sessions) or an API key (revoking the key ends them).
CREATE TABLE ui_sessions (
  token_hash    BLOB PRIMARY KEY,                      -- SHA-256 of the cookie's 32 random bytes
  kind          TEXT NOT NULL CHECK (kind IN ('admin', 'apiKey')),
  admin_hash    BLOB,                                  -- kind admin: SHA-256 of the admin token it was exchanged for
  key_id        TEXT REFERENCES api_keys (id),         -- kind apiKey
  created_at    TEXT NOT NULL,
  last_used_at  TEXT NOT NULL,
  expires_at    TEXT NOT NULL                          -- absolute end (created_at + 7 days)
);
CREATE INDEX ui_sessions_by_key ON ui_sessions (key_id);
-- A read-only link to one site's dashboard: it reaches that site's /reports/* reads and nothing else.
CREATE TABLE ui_share_links (
  id            TEXT PRIMARY KEY,                      -- UUID
  workspace_id  TEXT NOT NULL REFERENCES workspaces (id),
  site_id       TEXT NOT NULL,                         -- checked against the site's workspace on every use
  token_hash    BLOB NOT NULL UNIQUE,                  -- SHA-256 of the link's token; the token is shown once
  label         TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  revoked_at    TEXT
);
CREATE INDEX ui_share_links_by_site ON ui_share_links (site_id, created_at);

-- @version 17: dedup leaves the acknowledging commit (docs/ingest.md, "Dedup"). The event log's index on dedup_key
-- cost one random index page per event in every group commit's WAL frames. Its place: event_keys in this file,
-- written by the projector in its batches for every event up to event_keys_through (seq), and, for the events after
-- it, a set the writer keeps in memory, rebuilt at start from the log's tail. A hit in either is confirmed against
-- the stored row (site_id and id) by seq, which is never reused.
CREATE TABLE event_keys (
  dedup_key  INTEGER NOT NULL,              -- first 52 bits of the event's id (as events.dedup_key)
  seq        INTEGER NOT NULL,              -- the event's seq in the event log
  PRIMARY KEY (dedup_key, seq)
) WITHOUT ROWID;
CREATE TABLE event_keys_through (
  id   INTEGER PRIMARY KEY CHECK (id = 1),
  seq  INTEGER NOT NULL                     -- every stored event with a seq up to this one is in event_keys
);
INSERT INTO event_keys (dedup_key, seq) SELECT dedup_key, seq FROM eventlog.events ORDER BY dedup_key, seq;
INSERT INTO event_keys_through (id, seq)
VALUES (1, coalesce((SELECT seq FROM eventlog.sqlite_sequence WHERE name = 'events'), 0));
DROP INDEX eventlog.events_by_dedup_key;

-- @version 18: the visitor of each event, by seq (docs/analysis.md, "Cost"). A funnel reads a range's step events
-- through (site_id, ts) and groups them by visitor; reading anon_id (json_extract of raw) and building a string per
-- event took most of a month's funnel. The projector writes (seq, vid) with visitor_events in its batches, so the
-- read joins an integer by rowid instead; report_visitors gets an index by vid to find a visitor's anon_id and
-- bindings again. Filled here from visitor_events, which holds every projected event of an existing site.
CREATE TABLE event_visitors (
  seq  INTEGER PRIMARY KEY,   -- eventlog.events.seq
  vid  INTEGER NOT NULL       -- report_visitors.vid of the event's (site, anon_id)
);
INSERT INTO event_visitors (seq, vid) SELECT seq, vid FROM visitor_events ORDER BY seq;
CREATE INDEX report_visitors_by_vid ON report_visitors (vid);

-- @version 19: a path's visitors are the people with a pageview of it (CONTRACT section 10): a custom event on a path
-- counts as one of its events, never as a visitor. Before, any event on a path put its visitor in the path's and the
-- page's daily visitor sets (report_visitor_sets, dims 9 and 10) and in those days' `visitors` counters (pages showed
-- /signup with more visitors than views). Only the events can tell which members came from custom events alone: a
-- database that has projected events gets a pending repair, run at the next start before the projector
-- (src/projector/repair-path-visitors.ts), which takes those members out, day by day, and deletes its row when done.
-- Days the retention purge emptied keep their sets (their events are gone).
CREATE TABLE projector_repairs (
  name  TEXT PRIMARY KEY   -- which repair: 'path_visitors'
) WITHOUT ROWID;
INSERT INTO projector_repairs (name) SELECT 'path_visitors' FROM projector_state WHERE position > 0;

-- @version 20: people (CONTRACT section 9; src/users/, docs/people.md). Users sign in with an e-mail (stored
-- lower-cased, unique) and a password stored as an scrypt hash (its parameters in the stored string); their TOTP
-- secret is sealed (src/secrets/secret-box.ts, associated data "user-totp/<id>"), never stored in clear. A user's
-- sessions carry the UI's cookie (only its SHA-256 is stored) and have an id of their own, so each can be listed and
-- revoked. The audit log gains actor_kind 'user' (rebuilt: SQLite cannot alter a CHECK; every row copied as it was).
CREATE TABLE users (
  id               TEXT PRIMARY KEY,                 -- UUID
  email            TEXT NOT NULL UNIQUE,             -- lower-cased
  name             TEXT NOT NULL DEFAULT '',
  password_hash    TEXT,                             -- scrypt$N$r$p$salt$hash; null: no password set
  operator         INTEGER NOT NULL DEFAULT 0 CHECK (operator IN (0, 1)),
  totp_secret      BLOB,                             -- sealed; the confirmed secret while totp_enabled, else pending
  totp_enabled     INTEGER NOT NULL DEFAULT 0 CHECK (totp_enabled IN (0, 1)),
  totp_last_step   INTEGER,                          -- the last accepted TOTP time step: a code is never used twice
  created_at       TEXT NOT NULL,
  last_login_at    TEXT,
  disabled_at      TEXT
);
CREATE TABLE memberships (
  workspace_id  TEXT NOT NULL REFERENCES workspaces (id),
  user_id       TEXT NOT NULL REFERENCES users (id),
  role          TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'analyst', 'viewer')),
  created_at    TEXT NOT NULL,
  PRIMARY KEY (workspace_id, user_id)
) WITHOUT ROWID;
CREATE INDEX memberships_by_user ON memberships (user_id);
CREATE TABLE user_recovery_codes (
  user_id    TEXT NOT NULL REFERENCES users (id),
  code_hash  BLOB NOT NULL,                          -- SHA-256 of the code (80 random bits); shown once
  used_at    TEXT,
  PRIMARY KEY (user_id, code_hash)
) WITHOUT ROWID;
CREATE TABLE user_sessions (
  id            TEXT PRIMARY KEY,                    -- UUID: how the user names it to revoke it
  token_hash    BLOB NOT NULL UNIQUE,                -- SHA-256 of the cookie's 32 random bytes
  user_id       TEXT NOT NULL REFERENCES users (id),
  user_agent    TEXT NOT NULL DEFAULT '',            -- at most 200 characters, to tell one's sessions apart
  created_at    TEXT NOT NULL,
  last_used_at  TEXT NOT NULL,
  expires_at    TEXT NOT NULL                        -- absolute end (created_at + 7 days)
);
CREATE INDEX user_sessions_by_user ON user_sessions (user_id, created_at);
-- What happens to accounts, whatever workspace: sign-ins (the account's id, never the attempted e-mail), account
-- changes, second factors, revoked sessions. Append-only like audit_log.
CREATE TABLE account_audit_log (
  id          TEXT PRIMARY KEY,                      -- UUID
  actor_kind  TEXT NOT NULL CHECK (actor_kind IN ('admin', 'user', 'system', 'anonymous')),
  actor_id    TEXT,
  action      TEXT NOT NULL,
  user_id     TEXT,                                  -- the account concerned; null for a sign-in with an unknown e-mail
  metadata    TEXT NOT NULL DEFAULT '{}',
  ts          TEXT NOT NULL
);
CREATE INDEX account_audit_log_by_user ON account_audit_log (user_id, ts);
CREATE TRIGGER account_audit_log_refuses_update BEFORE UPDATE ON account_audit_log
BEGIN SELECT RAISE(ABORT, 'account_audit_log is append-only'); END;
CREATE TRIGGER account_audit_log_refuses_delete BEFORE DELETE ON account_audit_log
BEGIN SELECT RAISE(ABORT, 'account_audit_log is append-only'); END;
DROP TRIGGER audit_log_refuses_update;
DROP TRIGGER audit_log_refuses_delete;
CREATE TABLE audit_log_with_users (
  id            TEXT PRIMARY KEY,
  workspace_id  TEXT NOT NULL,
  actor_kind    TEXT NOT NULL CHECK (actor_kind IN ('admin', 'apiKey', 'system', 'user')),
  actor_id      TEXT,
  action        TEXT NOT NULL,
  target        TEXT,
  metadata      TEXT NOT NULL DEFAULT '{}',
  ts            TEXT NOT NULL
);
INSERT INTO audit_log_with_users (id, workspace_id, actor_kind, actor_id, action, target, metadata, ts)
SELECT id, workspace_id, actor_kind, actor_id, action, target, metadata, ts FROM audit_log;
DROP TABLE audit_log;
ALTER TABLE audit_log_with_users RENAME TO audit_log;
CREATE INDEX audit_log_by_workspace_ts ON audit_log (workspace_id, ts);
CREATE TRIGGER audit_log_refuses_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_refuses_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
-- @version 21: invitations and the workspace's second-factor rule (CONTRACT section 9; docs/people.md). An
-- invitation's token is shown once and stored only as its SHA-256; it works once, for 7 days, unless revoked.
CREATE TABLE invitations (
  id            TEXT PRIMARY KEY,                    -- UUID
  workspace_id  TEXT NOT NULL REFERENCES workspaces (id),
  email         TEXT NOT NULL,                       -- lower-cased
  role          TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'analyst', 'viewer')),
  token_hash    BLOB NOT NULL UNIQUE,                -- SHA-256 of inv_ + 32 random bytes
  created_by    TEXT NOT NULL,                       -- actor kind and id, e.g. user:<id>, admin, apiKey:<id>
  created_at    TEXT NOT NULL,
  expires_at    TEXT NOT NULL,                       -- created_at + 7 days: refused from that millisecond on
  accepted_at   TEXT,
  accepted_by   TEXT,                                -- the user who accepted
  revoked_at    TEXT
);
CREATE INDEX invitations_by_workspace ON invitations (workspace_id, created_at);
-- 1: members without a second factor reach only /v1/me and /v1/auth until they set one up.
ALTER TABLE workspaces ADD COLUMN require_2fa INTEGER NOT NULL DEFAULT 0 CHECK (require_2fa IN (0, 1));
-- @version 22: deletions on their way to ClickHouse (docs/clickhouse.md, "Deletion"). A GDPR delete or a site
-- deletion removes the rows here at once; ClickHouse removes its copies by a mutation that runs in the background.
-- Until that mutation has finished, every ClickHouse read leaves out what a row here names: events with seq up to
-- through_seq (and visits entered by them) of the site, of the listed visitors only when anon_ids is set. A row is
-- removed once ClickHouse holds none of those rows any more, so a subject's anon_ids are kept only that long. Written
-- only when CLICKHOUSE_URL is set (a site deletion always writes its row: a site id is no personal data).
CREATE TABLE clickhouse_deletions (
  id                INTEGER PRIMARY KEY,
  site_id           TEXT NOT NULL,
  anon_ids          TEXT,                           -- JSON array of the subject's anon_ids; NULL: the whole site
  through_seq       INTEGER NOT NULL,               -- the newest stored seq at the deletion: later events are new data
  created_at        INTEGER NOT NULL,               -- epoch ms
  mutation_sent_at  INTEGER                         -- epoch ms, once ClickHouse was asked to delete (ALTER … DELETE)
);
CREATE INDEX clickhouse_deletions_by_site ON clickhouse_deletions (site_id);
-- @version 23: single sign-on (OpenID Connect; CONTRACT section 9, src/users/oidc-*.ts, docs/people.md). A sign-in
-- under way keeps its PKCE verifier, state and nonce here, under the SHA-256 of a random id that only the browser's
-- short-lived cookie holds; one use, 10 minutes. An account linked to the provider keeps its issuer and subject.
CREATE TABLE oidc_sign_ins (
  id_hash        BLOB PRIMARY KEY,                   -- SHA-256 of the cookie's random id (32 bytes)
  state          TEXT NOT NULL,
  nonce          TEXT NOT NULL,
  code_verifier  TEXT NOT NULL,
  redirect_uri   TEXT NOT NULL,
  client_key     TEXT NOT NULL,                      -- the throttle's key of the starting address (ip:…): a cap each
  created_at     TEXT NOT NULL,
  expires_at     TEXT NOT NULL                       -- created_at + 10 minutes: refused from that millisecond on
);
CREATE INDEX oidc_sign_ins_by_expiry ON oidc_sign_ins (expires_at);
CREATE INDEX oidc_sign_ins_by_client ON oidc_sign_ins (client_key, expires_at);
ALTER TABLE users ADD COLUMN sso_subject TEXT;     -- "<issuer> <sub>" of the linked OpenID account, or NULL
CREATE UNIQUE INDEX users_by_sso_subject ON users (sso_subject) WHERE sso_subject IS NOT NULL;
-- An analyst makes share links and manages its own (CONTRACT 9): who made each link ("user:<id>", "admin",
-- "apiKey:<id>"; NULL for links made before).
ALTER TABLE ui_share_links ADD COLUMN created_by TEXT;

-- @version 24: goals, segments and annotations (CONTRACT section 10; docs/reports.md). Each is a small row of one
-- site, written by its own domain (src/goals/, src/segments/, src/annotations/) and removed with its site.
CREATE TABLE goals (
  id          TEXT PRIMARY KEY,                        -- UUID
  site_id     TEXT NOT NULL,
  name        TEXT NOT NULL,
  kind        TEXT NOT NULL,                           -- pageview or event (checked by src/goals/)
  path        TEXT,                                    -- exact, or ending in * for the path's folder and below
  event_type  TEXT,                                    -- event goals only
  props       TEXT,                                    -- JSON object of exact string matches, or NULL
  created_at  TEXT NOT NULL
);
CREATE INDEX goals_by_site ON goals (site_id, created_at);
CREATE TABLE segments (
  id          TEXT PRIMARY KEY,                        -- UUID
  site_id     TEXT NOT NULL,
  name        TEXT NOT NULL,
  filters     TEXT NOT NULL,                           -- JSON object: the common filter parameters as sent
  visibility  TEXT NOT NULL,                           -- personal or site (checked by its domain)
  owner_id    TEXT NOT NULL,                           -- user:<id>, apiKey:<id> or admin
  created_at  TEXT NOT NULL
);
CREATE INDEX segments_by_site ON segments (site_id, created_at);
CREATE TABLE annotations (
  id          TEXT PRIMARY KEY,                        -- UUID
  site_id     TEXT NOT NULL,
  date        TEXT NOT NULL,                           -- YYYY-MM-DD (UTC day)
  text        TEXT NOT NULL,
  visibility  TEXT NOT NULL,                           -- personal or site (checked by its domain)
  owner_id    TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE INDEX annotations_by_site_date ON annotations (site_id, date);
-- @version 25: where a share link may be embedded (docs/admin-ui.md, "Embedding"): a JSON array of at most 10
-- origins (scheme://host[:port]); the dashboard page opened with ?embed=<link id> sets frame-ancestors to them.
ALTER TABLE ui_share_links ADD COLUMN embed_origins TEXT NOT NULL DEFAULT '[]';
-- @version 26: e-mail reports, traffic alerts and the mail outbox (CONTRACT section 13; src/mail/, src/email-reports/,
-- src/alerts/, docs/email.md). A due report is claimed by inserting its outbox row, whose id is the period key
-- (report:<subscription>:<period start>): a second claim of the same period inserts nothing.
CREATE TABLE email_report_subscriptions (
  id          TEXT PRIMARY KEY,                    -- UUID
  site_id     TEXT NOT NULL REFERENCES sites (id),
  user_id     TEXT NOT NULL,                       -- users (id): accounts are disabled, never deleted
  frequency   TEXT NOT NULL,                       -- weekly | monthly (checked by the API)
  created_at  TEXT NOT NULL,
  UNIQUE (site_id, user_id, frequency)
);
CREATE INDEX email_report_subscriptions_by_user ON email_report_subscriptions (user_id);
CREATE TABLE mail_outbox (
  id               TEXT PRIMARY KEY,               -- report:<subscription>:<period start ms>, alert:…, test:<uuid>
  kind             TEXT NOT NULL CHECK (kind IN ('report', 'report_test', 'alert')),
  recipient        TEXT NOT NULL,
  subject          TEXT NOT NULL,
  text_body        TEXT NOT NULL,
  html_body        TEXT,
  headers          TEXT NOT NULL DEFAULT '{}',     -- JSON object of extra headers (List-Unsubscribe…)
  status           TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  INTEGER NOT NULL,               -- epoch ms
  created_at       TEXT NOT NULL,
  sent_at          TEXT,
  last_error       TEXT
);
CREATE INDEX mail_outbox_due ON mail_outbox (status, next_attempt_at);
-- The HMAC key of unsubscribe links: 32 random bytes sealed with DATA_DIR/secrets.key, made on first use.
CREATE TABLE mail_signing_key (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  sealed  BLOB NOT NULL
);
CREATE TABLE alerts (
  id             TEXT PRIMARY KEY,                 -- UUID
  site_id        TEXT NOT NULL REFERENCES sites (id),
  kind           TEXT NOT NULL,                    -- traffic_spike | traffic_drop (checked by the API)
  threshold      INTEGER NOT NULL,                 -- visitors (spike, 1-1,000,000) or percent (drop, 1-100)
  recipients     TEXT NOT NULL DEFAULT '[]',       -- JSON array of user ids
  endpoint_id    TEXT,                             -- a webhook_endpoints id of the site's workspace, or null
  created_at     TEXT NOT NULL,
  last_fired_at  INTEGER                           -- epoch ms: at most one firing per rule per hour
);
CREATE INDEX alerts_by_site ON alerts (site_id);

-- @version 27: imports (CONTRACT section 11; src/imports/, docs/import-export.md). One row per import job, its
-- progress and its first 100 errors. An import's events are stored through the ingest write queue, a batch at a
-- time; a batch's stored events have consecutive seqs, recorded here as ranges, so deleting the import finds exactly
-- its events (and never an event another source had stored first under the same id).
CREATE TABLE imports (
  id               TEXT PRIMARY KEY,                 -- UUID
  site_id          TEXT NOT NULL,
  format           TEXT NOT NULL,                    -- plausible-csv, umami-csv, ga4-bigquery or goatcounter-csv
  status           TEXT NOT NULL,                    -- queued, running, done or failed
  phase            TEXT,                             -- running: 'validating' (the whole file) then 'storing'
  rows_read        INTEGER NOT NULL DEFAULT 0,
  events_imported  INTEGER NOT NULL DEFAULT 0,
  duplicates       INTEGER NOT NULL DEFAULT 0,       -- events already stored (a re-import): not stored again
  days_imported    INTEGER NOT NULL DEFAULT 0,
  bytes_total      INTEGER,                          -- the file's size (compressed, as uploaded)
  bytes_read       INTEGER NOT NULL DEFAULT 0,
  errors           TEXT NOT NULL DEFAULT '[]',       -- JSON [{ line, message }], the first 100
  created_at       TEXT NOT NULL,
  started_at       TEXT,
  finished_at      TEXT
);
CREATE INDEX imports_by_site ON imports (site_id, created_at);
CREATE TABLE import_event_ranges (
  import_id  TEXT NOT NULL REFERENCES imports (id),
  first_seq  INTEGER NOT NULL,
  last_seq   INTEGER NOT NULL,
  PRIMARY KEY (import_id, first_seq)
) WITHOUT ROWID;
-- Plausible's CSV export holds daily aggregates only: kept per site, day, dimension and value (dimension 'total' for
-- the site's own daily totals), and added to the reports for their days (src/read-model/sqlite/imported-reads.ts).
-- The same figure imported twice (a re-import) is kept once: the first import's stays.
CREATE TABLE imported_daily (
  site_id     TEXT NOT NULL,
  dimension   TEXT NOT NULL,                         -- total, page, entry_page, exit_page, source, campaign, country, device, browser, os, event
  value       TEXT NOT NULL,                         -- '' for total
  day         INTEGER NOT NULL,                      -- UTC days since the epoch
  import_id   TEXT NOT NULL,                         -- the import (imports.id) that brought it
  visitors    INTEGER NOT NULL,                      -- that day's visitors (a sum over days over-counts returning ones)
  visits      INTEGER NOT NULL,
  pageviews   INTEGER NOT NULL,
  bounces     INTEGER NOT NULL,
  duration_s  INTEGER NOT NULL,                      -- total visit duration, seconds
  events      INTEGER NOT NULL,
  PRIMARY KEY (site_id, dimension, value, day)
) WITHOUT ROWID;
CREATE INDEX imported_daily_by_import ON imported_daily (import_id);
-- @version 28: one-time set-password links (CONTRACT section 9: `sightline user create` prints one). The token is
-- shown once and stored only as its SHA-256; it works once, for 7 days.
CREATE TABLE password_links (
  id          TEXT PRIMARY KEY,                    -- UUID
  user_id     TEXT NOT NULL REFERENCES users (id),
  token_hash  BLOB NOT NULL UNIQUE,                -- SHA-256 of pwl_ + 32 random bytes
  created_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL,                       -- created_at + 7 days: refused from that millisecond on
  used_at     TEXT
);
CREATE INDEX password_links_by_user ON password_links (user_id);
-- @version 29: the retention purge reaches ClickHouse (docs/clickhouse.md, "Deletion"). A pending deletion with
-- before_ts names only the site's events with ts before it (and visits that ended before it), up to through_seq:
-- what the site's retention period removed from the embedded database. NULL: no time bound (GDPR, site deletion).
ALTER TABLE clickhouse_deletions ADD COLUMN before_ts INTEGER;

-- @version 30: the page sequence of each visit (docs/reports.md, "Journeys and page flow"; src/projector/visit-sequences.ts
-- owns it). Journeys and page flow cut the range's events into visits (a scan of every event of the range); they now
-- read one narrow row per visit with a pageview: its start, its visitor (vid × 2 + is_internal) and its pageviews'
-- paths as ids of the rollups' path dictionary (report_values, dim 9), consecutive repeats collapsed, packed as
-- unsigned LEB128. The projector rebuilds a visit's row whenever the visit changes. A database that has projected
-- events gets a pending backfill from its stored visits, run at the next start before the projector, a chunk per
-- transaction with its cursor (after_visit); journeys read the events, as before, until it has finished.
CREATE TABLE visit_sequences (
  site_id   TEXT NOT NULL,
  start_ts  INTEGER NOT NULL,   -- the visit's first kept event
  visitor   INTEGER NOT NULL,   -- report_visitors.vid * 2 + is_internal
  pages     BLOB NOT NULL,
  PRIMARY KEY (site_id, start_ts, visitor)
) WITHOUT ROWID;
CREATE TABLE visit_sequences_backfill (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  after_visit  INTEGER NOT NULL,   -- sessions.id: the visits up to it are done
  last_visit   INTEGER NOT NULL    -- sessions.id of the newest visit stored before the upgrade
);
INSERT INTO visit_sequences_backfill (id, after_visit, last_visit)
  SELECT 1, 0, (SELECT coalesce(max(id), 0) FROM sessions) FROM projector_state WHERE position > 0;

-- @version 31: the visit filters of each stored page sequence (docs/reports.md, "Journeys and page flow"). Journeys
-- and page flow with a visit filter (source, device, browser, os, country, region, city) cut the events into visits,
-- as the rows kept no visit attributes; each row now keeps its visit's values (its first kept event's) as ids of the
-- same per-site dictionary as its pages (report_values, the dimension's code), NULL where the visit has none. A
-- database that has rows gets a pending fill from the stored visits (sessions, by id, a chunk per transaction with
-- its cursor), run at the next start before the projector, after schema 30's; filtered journeys read the events, as
-- before, until it has finished.
ALTER TABLE visit_sequences ADD COLUMN source_id INTEGER;
ALTER TABLE visit_sequences ADD COLUMN device_id INTEGER;
ALTER TABLE visit_sequences ADD COLUMN browser_id INTEGER;
ALTER TABLE visit_sequences ADD COLUMN os_id INTEGER;
ALTER TABLE visit_sequences ADD COLUMN country_id INTEGER;
ALTER TABLE visit_sequences ADD COLUMN region_id INTEGER;
ALTER TABLE visit_sequences ADD COLUMN city_id INTEGER;
CREATE TABLE visit_sequences_attributes_backfill (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  after_visit  INTEGER NOT NULL,   -- sessions.id: the visits up to it are done
  last_visit   INTEGER NOT NULL    -- sessions.id of the newest visit stored before the upgrade
);
INSERT INTO visit_sequences_attributes_backfill (id, after_visit, last_visit)
  SELECT 1, 0, (SELECT coalesce(max(id), 0) FROM sessions) WHERE EXISTS (SELECT 1 FROM visit_sequences);
-- Retention started on an event goal (a purchase, a signup) read every event of its range to find the goal's few
-- (98% are pageviews), then each candidate's history before it. A partial index of the event log's other events by
-- type finds them directly, and the earlier ones of the same type in one pass (docs/reports.md, "Retention"); the
-- ingest pays an index entry for custom events only.
CREATE INDEX eventlog.events_by_site_type_ts ON events (site_id, type, ts) WHERE type <> 'pageview';

-- @version 32: a visit's events in its stored sequence row (docs/reports.md, "Narrow visits"). A filtered dashboard cut
-- the range's visits out of the raw event log (a month of a 10M-event site: 790,000 wide rows, 8 s); each row of
-- visit_sequences now stands in for its visit's raw events: every kept event packed (time, type id, path id, revenue:
-- src/projector/visit-events-pack.ts) and the entry's campaign (report_values, the campaign dimension's key), and
-- every visit has a row, with or without a pageview (pages empty then; journeys skip those). A visit a day long or
-- longer raises its site's visit_sequences_longest, how far before a range a read must look for visits reaching into
-- it (a bound: never lowered). A database that has projected events gets a pending fill from its stored visits (each
-- row rebuilt from its events, a chunk per transaction with its cursor), run at the next start before the projector,
-- after the fills of 30 and 31; the raw pass reads the events, as before, until it has finished.
ALTER TABLE visit_sequences ADD COLUMN events BLOB;
ALTER TABLE visit_sequences ADD COLUMN campaign_id INTEGER;
CREATE TABLE visit_sequences_longest (
  site_id  TEXT PRIMARY KEY,
  span_ms  INTEGER NOT NULL    -- the longest visit's end_ts - start_ts, once it reached a day
) WITHOUT ROWID;
CREATE TABLE visit_sequences_events_backfill (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  after_visit  INTEGER NOT NULL,   -- sessions.id: the visits up to it are done
  last_visit   INTEGER NOT NULL    -- sessions.id of the newest visit stored before the upgrade
);
INSERT INTO visit_sequences_events_backfill (id, after_visit, last_visit)
  SELECT 1, 0, (SELECT coalesce(max(id), 0) FROM sessions) FROM projector_state WHERE position > 0;

-- @version 33: one ClickHouse shipper per data directory at a time (docs/clickhouse.md, "One shipper"; owned by
-- src/clickhouse/shipping-lease.ts). The server's shipping loop and `sightline clickhouse backfill` hold this lease
-- while they ship and renew it; a second one is refused. A holder that died is detected (same host, its pid gone) or
-- its lease expires.
CREATE TABLE clickhouse_shipping_lease (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  holder_id    TEXT NOT NULL,      -- random per shipper (a process may run several in tests)
  kind         TEXT NOT NULL,      -- 'server' | 'backfill'
  host         TEXT NOT NULL,      -- os.hostname() of the holder
  pid          INTEGER NOT NULL,
  acquired_at  INTEGER NOT NULL,   -- epoch ms
  expires_at   INTEGER NOT NULL    -- epoch ms: renewed while it ships; free from this millisecond on
);
