// The ClickHouse connection of the CLI's commands: CLICKHOUSE_* or the flags of the same names (as `serve` takes).
import { createClickHouse, type ClickHouse } from '../clickhouse/client.ts';
import { loadConfig } from '../config.ts';
import { ApiError } from '../http/errors.ts';

export const connectionArgs = {
  'clickhouse-url': { type: 'string', description: 'ClickHouse HTTP interface (CLICKHOUSE_URL)' },
  'clickhouse-database': { type: 'string', description: 'Database (CLICKHOUSE_DATABASE, default sightline)' },
  'clickhouse-user': { type: 'string', description: 'User (CLICKHOUSE_USER)' },
  'clickhouse-password': { type: 'string', description: 'Password (CLICKHOUSE_PASSWORD; prefer the variable)' },
  'clickhouse-cluster': { type: 'string', description: 'Cluster from remote_servers (CLICKHOUSE_CLUSTER)' },
} as const;

export type ConnectionFlags = { [name in keyof typeof connectionArgs]?: string | undefined } & { 'data-dir'?: string | undefined };

/** The configured ClickHouse, or a refusal naming CLICKHOUSE_URL. */
export function connect(args: ConnectionFlags): ClickHouse {
  const settings = loadConfig(process.env, { ...args }).clickhouse;
  if (!settings) throw new ApiError(400, 'not_configured', 'No ClickHouse configured: set CLICKHOUSE_URL (or pass --clickhouse-url), e.g. http://127.0.0.1:8123');
  return createClickHouse({ url: settings.url, database: settings.database, user: settings.user, password: settings.password, cluster: settings.cluster });
}

/** The configured ClickHouse, or undefined when CLICKHOUSE_URL (or its flag) is unset. */
export function connectIfConfigured(args: ConnectionFlags): ClickHouse | undefined {
  return loadConfig(process.env, { ...args }).clickhouse ? connect(args) : undefined;
}
