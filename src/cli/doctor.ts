// `sightline doctor`: checks the data directory (and warns on modes looser than 0700/0600), the database pragmas and
// schema version, and the versions in use.
import { defineCommand } from 'citty';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { adminTokenPath } from '../admin/admin-token.ts';
import { privateDirectoryMode, privateFileMode } from '../db/file-modes.ts';
import { eventLogSchema } from '../db/open.ts';
import { latestSchemaVersion } from '../db/schema.ts';
import { clickHouseSchemaVersion, latestClickHouseSchemaVersion } from '../clickhouse/schema.ts';
import { ClickHouseQueryError } from '../clickhouse/client.ts';
import { secretKeyFileName } from '../secrets/secret-box.ts';
import { connectIfConfigured, connectionArgs, type ConnectionFlags } from './clickhouse-connection.ts';
import { cliConfig, commonArgs, holdsSightlineData, noDataRefusal, output, runCommandSafely, table, withContext } from './common.ts';

interface Check {
  name: string;
  /** False fails the check (exit 1). */
  ok: boolean;
  /** Worth fixing, but the data directory works: printed as WARN, the exit status stays 0. */
  warning?: true;
  detail: string;
}

/** DATA_DIR's files that hold its data, each checked for a mode looser than 0600 when present. */
const dataFiles = ['sightline.db', 'sightline.db-wal', 'sightline.db-shm', 'events.db', 'events.db-wal', 'events.db-shm', secretKeyFileName];

function octal(mode: number): string {
  return mode.toString(8).padStart(4, '0');
}

/** A warning when group or others have any permission on `path` (the directory must be 0700, a file 0600). */
function modeCheck(name: string, path: string, wanted: number): Check {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) === 0) return { name, ok: true, detail: octal(mode) };
  return { name, ok: true, warning: true, detail: `${octal(mode)}: readable by group or others (chmod ${octal(wanted).slice(1)} ${path})` };
}

function nodeVersionAtLeast(major: number, minor: number): boolean {
  const [actualMajor, actualMinor] = process.versions.node.split('.').map(Number) as [number, number];
  return actualMajor > major || (actualMajor === major && actualMinor >= minor);
}

function betterSqliteVersion(): string {
  try {
    return (createRequire(import.meta.url)('better-sqlite3/package.json') as { version: string }).version;
  } catch {
    return 'bundled';
  }
}

/** With ClickHouse configured: whether it answers, and whether its tables are at this release's schema version. */
async function clickHouseChecks(args: ConnectionFlags): Promise<Check[]> {
  const clickhouse = connectIfConfigured(args);
  if (!clickhouse) return [];
  let serverVersion: string;
  try {
    serverVersion = await clickhouse.version();
  } catch (error) {
    return [{ name: 'clickhouse', ok: false, detail: error instanceof Error ? error.message : String(error) }];
  }
  const checks: Check[] = [{ name: 'clickhouse', ok: true, detail: `${clickhouse.url} (server ${serverVersion})` }];
  const schemaVersion = await clickHouseSchemaVersion(clickhouse).catch((error: unknown) => {
    // 81 UNKNOWN_DATABASE: nothing created yet.
    if (error instanceof ClickHouseQueryError && error.code === 81) return 0;
    throw error;
  });
  const current = schemaVersion === latestClickHouseSchemaVersion;
  checks.push({
    name: 'clickhouse schema version',
    ok: current,
    detail: `${schemaVersion} in ${clickhouse.database} (this release: ${latestClickHouseSchemaVersion})${current ? '' : ': run sightline clickhouse init'}`,
  });
  return checks;
}

export const doctorCommand = defineCommand({
  meta: { name: 'doctor', description: 'Check the data directory, database, runtime and (when configured) ClickHouse' },
  args: { ...commonArgs, ...connectionArgs },
  run: ({ args }) =>
    runCommandSafely(args, async () => {
      const config = cliConfig(args);
      const checks: Check[] = [];
      const dataDirExists = existsSync(config.dataDir);
      let writable = false;
      if (dataDirExists) {
        try {
          accessSync(config.dataDir, constants.W_OK);
          writable = true;
        } catch {
          writable = false;
        }
      }
      checks.push({ name: 'data directory', ok: dataDirExists && writable, detail: `${config.dataDir}${dataDirExists ? (writable ? ' (writable)' : ' (not writable)') : ' (missing)'}` });
      if (dataDirExists) {
        // Before opening the database, which would create missing -wal and -shm files.
        checks.push(modeCheck('data directory mode', config.dataDir, privateDirectoryMode));
        for (const file of dataFiles) {
          const path = join(config.dataDir, file);
          if (existsSync(path)) checks.push(modeCheck(`${file} mode`, path, privateFileMode));
        }
      }
      checks.push({ name: 'node', ok: nodeVersionAtLeast(20, 19), detail: `${process.versions.node} (needs >= 20.19)` });
      checks.push({ name: 'better-sqlite3', ok: true, detail: betterSqliteVersion() });
      if (existsSync(adminTokenPath(config.dataDir))) {
        const mode = statSync(adminTokenPath(config.dataDir)).mode & 0o777;
        checks.push({ name: 'admin-token file', ok: (mode & 0o077) === 0, detail: `mode ${octal(mode)} (must not be readable by others)` });
      }
      const hasData = dataDirExists && holdsSightlineData(config.dataDir);
      // Never creates a database: a doctor run on the wrong directory must not leave an empty one behind.
      if (dataDirExists && !hasData) checks.push({ name: 'database', ok: false, detail: noDataRefusal(args, config.dataDir).message });
      if (hasData && writable) {
        await withContext(args, (context) => {
          const pragma = (name: string) => context.db.pragma(name, { simple: true }) as string | number;
          const sqliteVersion = (context.db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
          checks.push({ name: 'sqlite', ok: true, detail: sqliteVersion });
          checks.push({ name: 'journal_mode', ok: pragma('journal_mode') === 'wal', detail: String(pragma('journal_mode')) });
          checks.push({ name: 'event log journal_mode', ok: pragma(`${eventLogSchema}.journal_mode`) === 'wal', detail: String(pragma(`${eventLogSchema}.journal_mode`)) });
          checks.push({ name: 'foreign_keys', ok: pragma('foreign_keys') === 1, detail: String(pragma('foreign_keys')) });
          checks.push({ name: 'busy_timeout', ok: Number(pragma('busy_timeout')) > 0, detail: `${pragma('busy_timeout')} ms` });
          const version = Number(pragma('user_version'));
          checks.push({ name: 'schema version', ok: version === latestSchemaVersion, detail: `${version} (this release: ${latestSchemaVersion})` });
          // Without a schema name, quick_check covers both files.
          const integrity = String(pragma('quick_check'));
          checks.push({ name: 'integrity', ok: integrity === 'ok', detail: integrity });
        });
      }
      checks.push(...(await clickHouseChecks(args)));
      const healthy = checks.every((check) => check.ok);
      if (!healthy) process.exitCode = 1;
      output(args, { ok: healthy, checks }, () =>
        table([['CHECK', 'STATUS', 'DETAIL'], ...checks.map((check) => [check.name, check.ok ? (check.warning ? 'WARN' : 'ok') : 'FAIL', check.detail])]),
      );
    }),
});
