// What every CLI command shares: the data-dir and --json flags, a context on DATA_DIR, and output/error handling.
import { consola } from 'consola';
import { cryptoRandom, systemClock } from '../clock.ts';
import { loadConfig, type Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import { openDatabase } from '../db/open.ts';
import { ApiError } from '../http/errors.ts';
import { databasePath } from '../server.ts';
import { createAppContext } from '../app.ts';
import { findWorkspaceBySlug, type WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import type { Actor } from '../audit/record-audit.ts';

export const commonArgs = {
  'data-dir': { type: 'string', description: 'Data directory (default: $DATA_DIR or ./data)' },
  json: { type: 'boolean', description: 'Print machine-readable JSON', default: false },
} as const;

/** CLI mutations are audited as the system (CONTRACT section 1). */
export const systemActor: Actor = { kind: 'system' };

export function cliConfig(args: { 'data-dir'?: string | undefined }): Config {
  return loadConfig(process.env, { 'data-dir': args['data-dir'] });
}

/** Opens DATA_DIR's database (safe while a server runs on it: WAL plus a busy timeout) for one command. */
export async function withContext<T>(args: { 'data-dir'?: string | undefined }, work: (context: AppContext) => T | Promise<T>): Promise<T> {
  const config = cliConfig(args);
  const db = openDatabase(databasePath(config.dataDir));
  try {
    // The CLI never authenticates HTTP callers; the token is unused here.
    // The app's own context (its lookups, and the one list of what deleting a site removes: src/app.ts).
    return await work(createAppContext({ db, config, clock: systemClock, random: cryptoRandom, adminToken: cryptoRandom.bytes(32).toString('hex') }));
  } finally {
    db.close();
  }
}

export function requireWorkspace(context: AppContext, slug: string): WorkspaceRow {
  const workspace = findWorkspaceBySlug(context.db, slug);
  if (!workspace) throw ApiError.notFound(`No workspace with slug ${slug}`);
  return workspace;
}

/** Prints `value` as JSON with --json, otherwise as the human text `describe` gives. */
export function output(args: { json?: boolean }, value: unknown, describe: () => string): void {
  if (args.json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  // Not consola.log: consola drops log lines when NODE_ENV=test or TEST is set; asked-for output always prints.
  else process.stdout.write(`${describe()}\n`);
}

/** Runs a command body; refusals print their message (and details) and exit 1. */
export async function runCommandSafely(args: { json?: boolean }, body: () => unknown): Promise<void> {
  try {
    await body();
  } catch (error) {
    process.exitCode = 1;
    if (error instanceof ApiError) {
      if (args.json) {
        process.stderr.write(`${JSON.stringify({ error: { code: error.code, message: error.message, details: error.details, ...error.extra } })}\n`);
      } else {
        // The shared actions validate a body; on the command line its fields are flags.
        const message = error.code === 'invalid_payload' && !error.extra?.rows ? 'Invalid arguments' : error.message;
        consola.error(`${message} (${error.code})`);
        for (const detail of error.details ?? []) consola.error(`  ${toFlagName(detail.path)}: ${detail.message}`);
        // A refused file names its bad lines (spend import).
        const rows = error.extra?.rows;
        if (Array.isArray(rows)) for (const row of rows as { line: number; message: string }[]) consola.error(`  line ${row.line}: ${row.message}`);
      }
      return;
    }
    consola.error(error instanceof Error ? error.message : error);
  }
}

/** A body pointer as the flag that supplied it: /slug → --slug, /scopes/1 → --scopes (item 2). */
function toFlagName(pointer: string): string {
  const [field, ...rest] = pointer.split('/').slice(1);
  if (!field) return '(arguments)';
  if (rest.length === 1 && /^\d+$/.test(rest[0]!)) return `--${field} (item ${Number(rest[0]) + 1})`;
  return `--${[field, ...rest].join('/')}`;
}

/** Follows next_cursor until the last page of an administrative list. */
export function collectPages<T>(fetchPage: (cursor: string | undefined) => [T[], string | null]): T[] {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const [page, next] = fetchPage(cursor);
    items.push(...page);
    cursor = next ?? undefined;
  } while (cursor);
  return items;
}

/** A two-column text table for human output. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '(none)';
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n');
}
