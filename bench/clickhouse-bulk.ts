// The 100M-event data set of `npm run bench -- clickhouse`, generated inside ClickHouse (INSERT … SELECT from
// numbers()): shipping 100M events through the shipper would take most of an hour on this machine, and the shipping
// rate is measured apart (from a real SQLite backlog). The distributions follow bench/reports-workload.ts: visits of
// 1 + Exp(4) pageviews, 1% purchases after the first, 6% of visits through a pricing → signup → purchase funnel;
// visitors drawn with a skew (the heaviest visit most days), 2% bot visits, 1% internal visitors; log-uniform paths
// (5,000), referrers (300, 40% direct) and countries (50); 10% of entries carry utm parameters; random UUIDs as ids
// and the raw JSON of each event as the tracker sends it. Visits are the rows the projector would ship (one version
// each), generated from the same numbers as their events. Deterministic apart from the ids.
import type { ClickHouse } from '../src/clickhouse/client.ts';
import { SqlText } from '../src/clickhouse/sql-literal.ts';

export interface BulkShape {
  siteId: string;
  /** Events wanted (the last chunk of visits may pass it a little). */
  events: number;
  days: number;
  /** Epoch ms of the last day's midnight (UTC). */
  lastDayMs: number;
}

const dayMs = 86_400_000;
/** Mean events of a visit (1 + Exp(4) pageviews, floored, plus the funnel's), to size the visit numbers. */
const meanEventsPerVisit = 4.62;

/** The visit numbered `v` (the column `number`) and everything its events derive from, as one SELECT. */
function visitSource(shape: BulkShape, visits: number, part: number, parts: number): string {
  const visitors = Math.max(1000, Math.round((200_000 * shape.events) / 10_000_000));
  const firstDayMs = shape.lastDayMs - (shape.days - 1) * dayMs;
  const spanMs = shape.days * dayMs - 3 * 3_600_000;
  const u = (k: number) => `(cityHash64(number, ${k}) % 1000000) / 1000000.`;
  return `SELECT
    number AS v,
    toUInt64(floor(${visitors} * pow(${u(1)}, 2.5))) AS visitor,
    concat('v', lower(hex(visitor)), '-', lower(hex(cityHash64(visitor) % 1000000000))) AS anon_id,
    ${u(2)} < 0.02 AS is_bot,
    cityHash64(visitor, 3) % 100 = 0 AS is_internal,
    toInt64(${firstDayMs} + intDiv(number * ${spanMs}, ${visits}) + cityHash64(number, 4) % 600000) AS start_ts,
    1 + least(29, toUInt32(floor(-log(1 - ${u(5)}) * 4))) AS base_len,
    ${u(6)} < 0.06 AND NOT is_bot AS funnel,
    ${u(7)} AS f1, ${u(8)} AS f2, ${u(9)} AS f3,
    if(funnel, 1 + (f1 < 0.5) + (f1 < 0.5 AND f2 < 0.6) + (f1 < 0.5 AND f2 < 0.6 AND f3 < 0.4), 0) AS funnel_len,
    base_len + funnel_len AS len,
    if(${u(10)} < 0.4, '', concat('ref', toString(toUInt32(floor(exp(${u(11)} * log(301)))) - 1), '.example')) AS referrer_host,
    if(referrer_host = '', 'direct', referrer_host) AS visit_source,
    ${u(12)} < 0.1 AS campaign,
    concat('c', toString(cityHash64(number, 13) % 20)) AS campaign_name,
    cityHash64(visitor, 14) % 7 + 1 AS agent,
    if(is_bot, 'Googlebot', ['Chrome', 'Chrome', 'Mobile Safari', 'Safari', 'Firefox', 'Edge', 'Mobile Safari'][agent]) AS browser,
    if(is_bot, NULL, ['Windows', 'Android', 'iOS', 'Mac OS', 'Linux', 'Windows', 'iOS'][agent]) AS os,
    if(is_bot, 'other', ['desktop', 'mobile', 'mobile', 'desktop', 'desktop', 'desktop', 'tablet'][agent]) AS device_type,
    toUInt32(floor(exp((cityHash64(visitor, 15) % 1000000) / 1000000. * log(51)))) - 1 AS country_rank,
    concat(substring('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 1 + country_rank % 26, 1), substring('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 1 + intDiv(country_rank, 26), 1)) AS country
  FROM numbers(${visits}) WHERE number % ${parts} = ${part}`;
}

/** Per event of a visit (`step`, 0-based): its time, path, type and revenue. */
const stepTs = (step: string) => `start_ts + ${step} * 150000 + if(${step} = 0, 0, cityHash64(v, ${step}, 30) % 60000)`;
const stepPath = (step: string) =>
  `if(${step} < base_len, concat('/p/', toString(toUInt32(floor(exp((cityHash64(v, ${step}, 32) % 1000000) / 1000000. * log(5001)))) - 1)),
     ['/pricing', '/signup', '/signup/done', '/checkout/done'][${step} - base_len + 1])`;
const stepType = (step: string) =>
  `if(${step} < base_len, if(${step} > 0 AND cityHash64(v, ${step}, 31) % 100 = 0, 'purchase', 'pageview'),
     ['pageview', 'signup_started', 'signup_completed', 'purchase'][${step} - base_len + 1])`;
const campaignQuery = `concat('utm_source=news&utm_medium=email&utm_campaign=', campaign_name)`;

// Small blocks (a block of visits becomes about five times as many events, each with its raw JSON) and more memory
// than the queries get (docs/clickhouse.md): loading is a one-off job of the benchmark, not the server's workload.
const loadSettings = 'max_memory_usage = 4000000000, max_block_size = 8192, min_insert_block_size_rows = 131072, min_insert_block_size_bytes = 67108864';

function eventsInsert(shape: BulkShape, visits: number, part: number, parts: number): SqlText {
  return new SqlText(`INSERT INTO events
  SELECT seq, site_id, id, type, ts, received_at, anon_id, user_id, path, query, source, utm_source, utm_medium, utm_campaign,
    browser, os, device_type, country, region, city, is_bot, is_internal, revenue_minor, revenue_currency, raw
  FROM (
    SELECT
      v * 64 + step + 1 AS seq,
      '${shape.siteId}' AS site_id,
      toString(generateUUIDv4()) AS id,
      ${stepType('step')} AS type,
      toInt64(${stepTs('step')}) AS ts,
      toInt64(ts + 200 + cityHash64(v, step, 33) % 2000) AS received_at,
      anon_id,
      if(funnel AND step >= base_len + 2, concat('user-', lower(hex(visitor))), NULL) AS user_id,
      ${stepPath('step')} AS path,
      if(step = 0 AND campaign, ${campaignQuery}, NULL) AS query,
      if(step = 0, visit_source, 'direct') AS source,
      if(step = 0 AND campaign, 'news', NULL) AS utm_source,
      if(step = 0 AND campaign, 'email', NULL) AS utm_medium,
      if(step = 0 AND campaign, campaign_name, NULL) AS utm_campaign,
      browser, os, device_type, country,
      CAST(NULL AS Nullable(String)) AS region,
      CAST(NULL AS Nullable(String)) AS city,
      toUInt8(is_bot) AS is_bot,
      toUInt8(is_internal) AS is_internal,
      if(type = 'purchase', toInt64(if(step < base_len, 1999, [2900, 4999, 4900][cityHash64(v, 34) % 3 + 1])), NULL) AS revenue_minor,
      if(type = 'purchase', if(step < base_len, 'EUR', ['EUR', 'USD', 'JPY'][cityHash64(v, 34) % 3 + 1]), NULL) AS revenue_currency,
      concat('{"id":"', id, '","site_id":"${shape.siteId}","anon_id":"', anon_id, '","ts":"',
        replaceOne(toString(toDateTime(intDiv(ts, 1000), 'UTC')), ' ', 'T'), '.', substring(toString(1000 + ts % 1000), 2), 'Z","type":"', type,
        '","url":"https://site.example', path, if(step = 0 AND campaign, concat('?', ${campaignQuery}), ''), '","referrer":',
        if(step = 0, if(referrer_host = '', 'null', concat('"https://', referrer_host, '/some/page"')),
          concat('"https://site.example/p/', toString(cityHash64(v, step, 35) % 5000), '"')),
        if(type = 'purchase', concat(',"revenue":{"amount":"', if(revenue_currency = 'JPY', toString(revenue_minor), concat(toString(intDiv(revenue_minor, 100)), '.', substring(toString(100 + revenue_minor % 100), 2))), '","currency":"', revenue_currency, '"}'), ''),
        '}') AS raw
    FROM (${visitSource(shape, visits, part, parts)})
    ARRAY JOIN range(len) AS step
  ) SETTINGS ${loadSettings}`);
}

function visitsInsert(shape: BulkShape, visits: number, part: number, parts: number): SqlText {
  return new SqlText(`INSERT INTO signed_visits (site_id, anon_id, is_internal, visit_id, sign, start_ts, end_ts, events, pageviews, entry_seq,
      entry_path, entry_query, source, utm_source, utm_medium, utm_campaign, browser, os, device_type, country, region, city,
      exit_ts, exit_seq, exit_path, exit_query)
  SELECT '${shape.siteId}', anon_id, toUInt8(is_internal), v, 1, start_ts, toInt64(${stepTs('(len - 1)')}), len,
    toUInt32(base_len + if(funnel, 1, 0)), v * 64 + 1, ${stepPath('0')}, if(campaign, ${campaignQuery}, NULL), visit_source,
    if(campaign, 'news', NULL), if(campaign, 'email', NULL), if(campaign, campaign_name, NULL), browser, os, device_type, country, NULL, NULL,
    toInt64(${stepTs('(len - 1)')}), v * 64 + len, ${stepPath('(len - 1)')}, NULL
  FROM (${visitSource(shape, visits, part, parts)})
  WHERE NOT is_bot SETTINGS ${loadSettings}`);
}

/**
 * Fills the events and visits tables with the shape in parts of about 250,000 visits, each part every n-th visit of
 * the whole period (so a load stopped half way is a uniform half of the data set, every day thinned alike). Resumable:
 * the parts done are recorded in bench_load_parts, and a part is recorded only after both its inserts. Returns the
 * events and visits the tables hold, and whether every part is in.
 */
export async function loadBulk(clickhouse: ClickHouse, shape: BulkShape, onProgress: (events: number, part: number, parts: number) => void, deadlineMs = Infinity): Promise<{ events: number; visits: number; complete: boolean }> {
  const visits = Math.ceil(shape.events / meanEventsPerVisit);
  const parts = Math.ceil(visits / 250_000);
  await clickhouse.exec(new SqlText('CREATE TABLE IF NOT EXISTS bench_load_parts (part UInt32) ENGINE = TinyLog'));
  const done = new Set((await clickhouse.query<{ part: number }>(new SqlText('SELECT part FROM bench_load_parts'))).map((row) => row.part));
  for (let part = 0; part < parts; part++) {
    if (done.has(part)) continue;
    if (Date.now() > deadlineMs) break;
    await clickhouse.exec(visitsInsert(shape, visits, part, parts));
    await clickhouse.exec(eventsInsert(shape, visits, part, parts));
    await clickhouse.exec(new SqlText(`INSERT INTO bench_load_parts VALUES (${part})`));
    done.add(part);
    const [row] = await clickhouse.query<{ n: number }>(new SqlText('SELECT count() AS n FROM events'));
    onProgress(row!.n, done.size, parts);
  }
  const [events] = await clickhouse.query<{ n: number }>(new SqlText('SELECT count() AS n FROM events'));
  const [visitRows] = await clickhouse.query<{ n: number }>(new SqlText('SELECT sum(sign) AS n FROM signed_visits'));
  return { events: events!.n, visits: visitRows!.n, complete: done.size === parts };
}
