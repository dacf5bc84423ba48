// `sightline clickhouse init|status`: creates or upgrades Sightline's tables in ClickHouse (idempotent), and shows
// how far shipping has come. The connection comes from CLICKHOUSE_* or the flags of the same names (README).
import { defineCommand } from 'citty';
import { createClickHouse, type ClickHouse } from '../clickhouse/client.ts';
import { applyClickHouseSchema, latestClickHouseSchemaVersion } from '../clickhouse/schema.ts';
import { readClickHouseStatus } from '../clickhouse/status.ts';
import { loadConfig } from '../config.ts';
import { ApiError } from '../http/errors.ts';
import { commonArgs, output, runCommandSafely, table, withContext } from './common.ts';

const connectionArgs = {
  'clickhouse-url': { type: 'string', description: 'ClickHouse HTTP interface (CLICKHOUSE_URL)' },
  'clickhouse-database': { type: 'string', description: 'Database (CLICKHOUSE_DATABASE, default sightline)' },
  'clickhouse-user': { type: 'string', description: 'User (CLICKHOUSE_USER)' },
  'clickhouse-password': { type: 'string', description: 'Password (CLICKHOUSE_PASSWORD; prefer the variable)' },
} as const;

type ConnectionFlags = { [name in keyof typeof connectionArgs]?: string | undefined } & { 'data-dir'?: string | undefined };

function connect(args: ConnectionFlags): ClickHouse {
  const settings = loadConfig(process.env, { ...args }).clickhouse;
  if (!settings) throw new ApiError(400, 'not_configured', 'No ClickHouse configured: set CLICKHOUSE_URL (or pass --clickhouse-url), e.g. http://127.0.0.1:8123');
  return createClickHouse({ url: settings.url, database: settings.database, user: settings.user, password: settings.password });
}

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
  meta: { name: 'status', description: 'Shipping lag, rows, bytes per event and the server version' },
  args: { ...commonArgs, ...connectionArgs },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, async (context) => {
        const report = await readClickHouseStatus(connect(args), context.db);
        output(args, report, () =>
          table([
            ['server version', report.server_version],
            ['database', report.database],
            ['schema version', `${report.schema_version} (this release: ${report.latest_schema_version})${report.schema_version < report.latest_schema_version ? ': run sightline clickhouse init' : ''}`],
            ['shipped through seq', String(report.shipped_through)],
            ['lag (events)', String(report.lag_events)],
            ['event rows', String(report.event_rows)],
            ['visit rows', String(report.visit_rows)],
            ['bytes on disk', `${report.events_bytes + report.visits_bytes} (events ${report.events_bytes}, visits ${report.visits_bytes})`],
            ['bytes per event', report.bytes_per_event === null ? '-' : String(report.bytes_per_event)],
          ]),
        );
      }),
    ),
});

export const clickhouseCommand = defineCommand({
  meta: { name: 'clickhouse', description: 'ClickHouse as the store of history: init, status' },
  subCommands: { init, status },
});
