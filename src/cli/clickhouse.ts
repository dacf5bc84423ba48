// `sightline clickhouse init|status|backfill`: creates or upgrades Sightline's tables in ClickHouse (idempotent),
// shows how far shipping has come, and ships an existing log with a progress bar. The connection comes from
// CLICKHOUSE_* or the flags of the same names (README).
import cliProgress from 'cli-progress';
import { defineCommand } from 'citty';
import * as v from 'valibot';
import type { ClickHouse } from '../clickhouse/client.ts';
import type { AppContext } from '../context.ts';
import { applyClickHouseSchema, latestClickHouseSchemaVersion } from '../clickhouse/schema.ts';
import { createShipper } from '../clickhouse/shipper.ts';
import { defaultLeaseMs, newLeaseHolder, releaseShippingLease, shipperOf, ShippingLeaseHeldError, takeShippingLease } from '../clickhouse/shipping-lease.ts';
import { ApiError } from '../http/errors.ts';
import { countBacklog } from '../clickhouse/sqlite-source.ts';
import { readClickHouseStatus } from '../clickhouse/status.ts';
import { connect, connectionArgs } from './clickhouse-connection.ts';
import { commonArgs, output, parseFlags, runCommandSafely, table, withContext } from './common.ts';

const init = defineCommand({
  meta: { name: 'init', description: 'Create or upgrade Sightline\'s tables in ClickHouse (safe to run again)' },
  args: { ...commonArgs, ...connectionArgs },
  run: ({ args }) =>
    runCommandSafely(args, async () => {
      const clickhouse = connect(args);
      const applied = await applyClickHouseSchema(clickhouse);
      const result = { database: clickhouse.database, applied, schema_version: latestClickHouseSchemaVersion };
      output(args, result, () =>
        applied.length === 0
          ? `ClickHouse database ${clickhouse.database} is up to date (schema version ${latestClickHouseSchemaVersion})`
          : `ClickHouse database ${clickhouse.database}: applied schema version${applied.length > 1 ? 's' : ''} ${applied.join(', ')}`,
      );
    }),
});

const status = defineCommand({
  meta: { name: 'status', description: 'Shipping lag, rows, bytes per event and the server version (per shard on a cluster)' },
  args: { ...commonArgs, ...connectionArgs },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, async (context) => {
        // Who ships this data directory now (the lease, shipping-lease.ts): the server, a backfill, or nobody.
        const report = { ...(await readClickHouseStatus(connect(args), context.db)), shipper: shipperOf(context.db, Date.now()) };
        output(args, report, () =>
          table([
            ['server version', report.server_version],
            ['database', report.database],
            ['schema version', `${report.schema_version} (this release: ${report.latest_schema_version})${report.schema_version < report.latest_schema_version ? ': run sightline clickhouse init' : ''}`],
            ['shipper', report.shipper === null ? 'none (no server or backfill ships this data directory now)' : `${report.shipper.kind} on ${report.shipper.host} (pid ${report.shipper.pid}), since ${report.shipper.since}, lease until ${report.shipper.until}`],
            ['shipped through seq', String(report.shipped_through)],
            ['lag (events)', String(report.lag_events)],
            ['event rows', String(report.event_rows)],
            ['visit rows', String(report.visit_rows)],
            ['bytes on disk', `${report.events_bytes + report.visits_bytes} (events ${report.events_bytes}, visits ${report.visits_bytes})`],
            ['bytes per event', report.bytes_per_event === null ? '-' : String(report.bytes_per_event)],
            // On a cluster, one line per shard (the figures above are their totals).
            ...(report.shards ?? []).map((shard): [string, string] => [
              `shard ${shard.shard} (${shard.host})`,
              `version ${shard.server_version}, through seq ${shard.shipped_through}, lag ${shard.lag_events}, ${shard.event_rows} events, ${shard.visit_rows} visits, ${shard.events_bytes + shard.visits_bytes} bytes (${shard.bytes_per_event ?? '-'} per event)`,
            ]),
          ]),
        );
      }),
    ),
});

/** Events per backfill batch: large batches ship fastest (npm run bench -- clickhouse); the bound keeps memory finite. */
const BackfillFlags = v.object({
  batch: v.pipe(v.string(), v.regex(/^\d{1,7}$/, 'must be a whole number of events'), v.transform(Number), v.minValue(1, 'must be at least 1'), v.maxValue(1_000_000, 'must be at most 1000000')),
});

const backfill = defineCommand({
  meta: { name: 'backfill', description: 'Ship the data directory\'s event log to ClickHouse (resumable, with a progress bar)' },
  args: { ...commonArgs, ...connectionArgs, batch: { type: 'string', description: 'Events per batch (default 50000, at most 1000000)', default: '50000' } },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, async (context) => {
        const { batch } = parseFlags(BackfillFlags, { batch: args.batch });
        const clickhouse = connect(args);
        // One shipper per data directory (shipping-lease.ts): refused, before anything is sent, while a server ships
        // this log (or another backfill runs); the lease is renewed while it ships and given back at the end.
        const holder = newLeaseHolder('backfill');
        const taken = takeShippingLease(context.db, holder, Date.now());
        if (!taken.held) throw new ApiError(409, 'shipper_running', new ShippingLeaseHeldError(taken.by, 'backfill').message);
        let leaseLost: ShippingLeaseHeldError | undefined;
        const renewal = setInterval(() => {
          const renewed = takeShippingLease(context.db, holder, Date.now());
          if (!renewed.held) leaseLost = new ShippingLeaseHeldError(renewed.by, 'backfill');
        }, defaultLeaseMs / 4);
        try {
          await backfillHoldingLease(args, context, clickhouse, batch, () => {
            if (leaseLost) throw new ApiError(409, 'shipper_running', leaseLost.message);
          });
        } finally {
          clearInterval(renewal);
          releaseShippingLease(context.db, holder);
        }
      }),
    ),
});

/** The backfill itself, while it holds the lease; `stillHeld` throws once it was lost (checked before each batch). */
async function backfillHoldingLease(args: { json?: boolean }, context: AppContext, clickhouse: ClickHouse, batch: number, stillHeld: () => void): Promise<void> {
    await applyClickHouseSchema(clickhouse);
    // The same exactly-once shipper as the server's: it resumes from the highest seq ClickHouse holds, so an
    // interrupted backfill continues where ClickHouse stands.
    const shipper = createShipper({ db: context.db, clickhouse, batchSize: batch });
    const from = await shipper.shippedThrough();
    const { shippable } = countBacklog(context.db, from);
    const bar = args.json || !process.stderr.isTTY
      ? undefined
      : new cliProgress.SingleBar({ stream: process.stderr, format: 'shipping {bar} {percentage}% | {value}/{total} events | {rate} events/s | eta {eta_formatted}', hideCursor: true }, cliProgress.Presets.shades_classic);
    const started = performance.now();
    bar?.start(shippable, 0, { rate: 0 });
    let events = 0;
    let batches = 0;
    let through = from;
    try {
      for (;;) {
        stillHeld();
        const shipped = await shipper.shipBatch();
        through = shipped.through;
        if (shipped.events === 0) break;
        events += shipped.events;
        batches++;
        // The log may have grown since the count (a server running without CLICKHOUSE_URL): the bar's total follows.
        if (events > shippable) bar?.setTotal(events);
        bar?.update(events, { rate: Math.round(events / ((performance.now() - started) / 1000)) });
      }
    } finally {
      bar?.stop();
    }
    const seconds = (performance.now() - started) / 1000;
    const notProjected = countBacklog(context.db, through).notProjected;
    const result = { database: clickhouse.database, shipped: events, batches, shipped_through: through, seconds: Math.round(seconds * 10) / 10, events_per_second: seconds > 0 ? Math.round(events / seconds) : 0, not_projected: notProjected };
    output(args, result, () =>
      [
        events === 0
          ? `ClickHouse database ${clickhouse.database} already holds every projected event (through seq ${through})`
          : `Shipped ${events} events in ${batches} batch${batches === 1 ? '' : 'es'} to ${clickhouse.database} (${result.events_per_second} events/s), through seq ${through}`,
        ...(notProjected > 0 ? [`${notProjected} events are not projected yet; the server projects and ships them when it runs`] : []),
      ].join('\n'),
    );
}

export const clickhouseCommand = defineCommand({
  meta: { name: 'clickhouse', description: 'ClickHouse as the store of history: init, status, backfill' },
  subCommands: { init, status, backfill },
});
