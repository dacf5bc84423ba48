-- Sightline's ClickHouse schema (docs/clickhouse.md). Versioned and append-only like schema.sql: each
-- "-- @version N" section runs once (recorded in schema_versions); never edit a released section, add one at the end.
-- Statements are separated by a ";" at the end of a line and each is idempotent (IF NOT EXISTS): a crash in the
-- middle of a section runs it again. Written for ClickHouse 18.16 (Debian 12) and current releases alike: MergeTree
-- family only, no LowCardinality (experimental on 18.16), no window functions.

-- @version 1: events and visits.
-- Events, as stored in the SQLite event log (bots included: the timeline shows them; reports leave them out).
-- ReplacingMergeTree over the sorting key (site_id, ts, seq): seq is unique in the log and ts never changes, so a row
-- sent twice (an insert that landed although its request failed, then sent again) is one key, and reads that must
-- count it once read with FINAL. The shipper resumes from max(seq) here, so this only happens in that race.
CREATE TABLE IF NOT EXISTS events (
  seq               UInt64,
  site_id           String,
  id                String,
  type              String,
  ts                Int64,
  received_at       Int64,
  anon_id           String,
  user_id           Nullable(String),
  path              Nullable(String),
  query             Nullable(String),
  source            String,
  utm_source        Nullable(String),
  utm_medium        Nullable(String),
  utm_campaign      Nullable(String),
  browser           Nullable(String),
  os                Nullable(String),
  device_type       Nullable(String),
  country           Nullable(String),
  region            Nullable(String),
  city              Nullable(String),
  is_bot            UInt8,
  is_internal       UInt8,
  revenue_minor     Nullable(Int64),
  revenue_currency  Nullable(String),
  raw               String
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(toDate(intDiv(ts, 1000)))
ORDER BY (site_id, ts, seq);

-- Visits as the projector derived them (CONTRACT section 4), one row per version of a visit: a late event extends or
-- merges visits, so the shipper sends the visitor's current visits again with a higher version, and a tombstone
-- (deleted = 1) for a visit that a merge took away. Reads take the newest version of each (FINAL) and skip the
-- tombstones outside it. entry_query and exit_query: the query strings of the entry and exit events (pages).
CREATE TABLE IF NOT EXISTS visits (
  site_id      String,
  anon_id      String,
  is_internal  UInt8,
  visit_id     UInt64,
  version      UInt64,
  deleted      UInt8,
  start_ts     Int64,
  end_ts       Int64,
  events       UInt32,
  pageviews    UInt32,
  entry_seq    UInt64,
  entry_path   Nullable(String),
  entry_query  Nullable(String),
  source       String,
  utm_source   Nullable(String),
  utm_medium   Nullable(String),
  utm_campaign Nullable(String),
  browser      Nullable(String),
  os           Nullable(String),
  device_type  Nullable(String),
  country      Nullable(String),
  region       Nullable(String),
  city         Nullable(String),
  exit_ts      Nullable(Int64),
  exit_seq     Nullable(UInt64),
  exit_path    Nullable(String),
  exit_query   Nullable(String)
) ENGINE = ReplacingMergeTree(version)
ORDER BY (site_id, anon_id, is_internal, visit_id);

-- @version 2: shipping marks, a cluster's per-shard position (cluster.ts).
-- On a cluster each shard's local tables are written separately, so "the highest seq ClickHouse holds" is per shard:
-- after a shard takes its part of a batch, the shipper adds a mark with the batch's last seq; a shard's position is
-- the greater of its events' max(seq) and its marks' max(through), so a shard that a batch brought nothing moves on
-- too. A single node has the table and never writes it (its position is the events' max(seq)).
CREATE TABLE IF NOT EXISTS shipping_marks (
  through     UInt64,
  marked_at   DateTime DEFAULT now()
) ENGINE = MergeTree
ORDER BY through;

-- @version 3: identity bindings.
-- (site, user_id) ↔ anon_id, as the projector binds them (an event naming a user binds its anon_id): one row per
-- binding per shipped batch, holding the batch's first event that made it. Every column comes from that event, so
-- a batch sent again repeats its rows exactly (same sorting key: one row after a merge); reads aggregate (min(seq)
-- per binding), which a repeated row, or one from an overlapping batch, cannot change. A binding's first event is
-- the first in its batch, so min(seq) is the seq of the event that first made it, as the projector's first_seen.
-- seq is named as in events, so a pending deletion's condition applies to bindings unchanged.
CREATE TABLE IF NOT EXISTS identity_bindings (
  site_id  String,
  user_id  String,
  anon_id  String,
  seq      UInt64,
  ts       Int64
) ENGINE = ReplacingMergeTree
ORDER BY (site_id, user_id, anon_id, seq);

-- @version 4: each site's newest shipped event, kept up to date as events arrive.
-- An answer's freshness (its position, the site's newest receive time) was a scan of every event's seq and
-- received_at: over a second per answer at tens of millions of events (npm run bench -- clickhouse). This view keeps
-- the maxima per site as events are inserted (AggregatingMergeTree merges the states), so freshness reads a few rows.
-- Deletions do not reach it (a deleted event's receive time may stay the watermark: receive times are the one field
-- CONTRACT 12 lets differ). Upgrade path: the INSERT fills it from the events already there; run twice, or while
-- events arrive, it changes nothing (a maximum counted twice is the same maximum).
CREATE MATERIALIZED VIEW IF NOT EXISTS event_marks
ENGINE = AggregatingMergeTree ORDER BY site_id
AS SELECT site_id, maxState(seq) AS max_seq, maxState(received_at) AS max_received_at FROM events GROUP BY site_id;

INSERT INTO event_marks SELECT site_id, maxState(seq) AS max_seq, maxState(received_at) AS max_received_at FROM events GROUP BY site_id;

-- @version 5: visits as signed rows, partitioned by start time, so that reads need no FINAL (docs/clickhouse.md).
-- FINAL was most of every question's cost: 18.16 merges it in one stream over every part, and `visits FINAL` read
-- every visit of the site (its key could not hold start_ts, which a late event changes). Here a visit that changes is
-- shipped as its old row again with sign -1 (cancelling it) and its new row with sign +1; a visit a merge took away
-- gets only the -1. Both rows of a pair carry the same values, so any filter on a row's columns keeps or drops both,
-- and every measure is a sum of sign (visits sum(sign), durations sum(sign * (end_ts - start_ts)), a visit's own
-- columns GROUP BY … HAVING sum(sign) > 0), exact before any merge; CollapsingMergeTree's merges remove the pairs.
-- A -1 has the start_ts of the row it cancels, so it lands in that row's partition and key; a 30-day question reads
-- 30 days of visits. The shipper reads what ClickHouse holds live for a visitor before sending the difference.
CREATE TABLE IF NOT EXISTS signed_visits (
  site_id      String,
  anon_id      String,
  is_internal  UInt8,
  visit_id     UInt64,
  sign         Int8,
  start_ts     Int64,
  end_ts       Int64,
  events       UInt32,
  pageviews    UInt32,
  entry_seq    UInt64,
  entry_path   Nullable(String),
  entry_query  Nullable(String),
  source       String,
  utm_source   Nullable(String),
  utm_medium   Nullable(String),
  utm_campaign Nullable(String),
  browser      Nullable(String),
  os           Nullable(String),
  device_type  Nullable(String),
  country      Nullable(String),
  region       Nullable(String),
  city         Nullable(String),
  exit_ts      Nullable(Int64),
  exit_seq     Nullable(UInt64),
  exit_path    Nullable(String),
  exit_query   Nullable(String)
) ENGINE = CollapsingMergeTree(sign)
PARTITION BY toYYYYMM(toDate(intDiv(start_ts, 1000)))
ORDER BY (site_id, start_ts, anon_id, is_internal, visit_id);

-- The longest span of any visit row of a site: a question over [from, to) reads the visits that overlap it, and with
-- this bound those start in [from - longest, to), a range of the sorting key, instead of every visit before `to`.
-- The view sees every insert (-1 rows too), so its maximum is at least the longest live visit's: a safe bound. Created
-- before the copy below, so the copy fills it.
CREATE MATERIALIZED VIEW IF NOT EXISTS visit_spans
ENGINE = AggregatingMergeTree ORDER BY site_id
AS SELECT site_id, maxState(end_ts - start_ts) AS longest FROM signed_visits GROUP BY site_id;

-- Upgrade path: each live visit of the old table (newest version, no tombstone) becomes one +1 row. Run again after a
-- crash part way, each statement copies only the visits not copied yet. In 16 parts by visitor (every version of a
-- visit is in the same part, the FINAL inside is exact): one copy of 4.9M visits read with FINAL and written into
-- monthly partitions passed 18.16's 1 GB per query (npm run bench -- clickhouse at 23M events); a sixteenth stays
-- well under it. Version 6 then drops the old table.
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 0)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 0)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 1)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 1)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 2)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 2)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 3)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 3)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 4)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 4)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 5)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 5)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 6)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 6)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 7)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 7)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 8)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 8)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 9)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 9)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 10)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 10)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 11)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 11)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 12)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 12)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 13)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 13)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 14)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 14)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;
INSERT INTO signed_visits SELECT site_id, anon_id, is_internal, visit_id, toInt8(1) AS sign, start_ts, end_ts, events, pageviews, entry_seq,
  entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city, exit_ts,
  exit_seq, exit_path, exit_query
FROM (SELECT * FROM visits FINAL WHERE cityHash64(anon_id) % 16 = 15)
WHERE deleted = 0 AND (site_id, anon_id, is_internal, visit_id) NOT IN (SELECT site_id, anon_id, is_internal, visit_id FROM signed_visits WHERE cityHash64(anon_id) % 16 = 15)
SETTINGS max_block_size = 8192, min_insert_block_size_rows = 65536, min_insert_block_size_bytes = 16777216;

-- @version 6: the old visits table, copied into signed_visits by version 5 and no longer written or read. Its own
-- section, so that version 5's copy, run again after a crash, still finds it.
DROP TABLE IF EXISTS visits;
