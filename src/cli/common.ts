// What every CLI command shares: the data-dir and --json flags, a context on DATA_DIR, and output/error handling.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { cryptoRandom, systemClock } from '../clock.ts';
import { loadConfig, type Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import { openDatabase } from '../db/open.ts';
import { ApiError } from '../http/errors.ts';
import { parseBody } from '../http/validate.ts';
import type * as v from 'valibot';
import { databasePath } from '../server.ts';
import { createAppContext } from '../app.ts';
import { findSite, type SiteRow } from '../tenants/queries/find-site.ts';
import { findWorkspaceBySlug, type WorkspaceRow } from '../tenants/queries/find-workspace.ts';
import type { Actor } from '../audit/record-audit.ts';
import { printError } from './terminal.ts';

export const commonArgs = {
  'data-dir': { type: 'string', description: 'Data directory (default: $DATA_DIR or ./data)' },
  json: { type: 'boolean', description: 'Print machine-readable JSON', default: false },
} as const;

/** CLI mutations are audited as the system (CONTRACT section 1). */
export const systemActor: Actor = { kind: 'system' };

export function cliConfig(args: { 'data-dir'?: string | undefined }): Config {
  return loadConfig(process.env, { 'data-dir': args['data-dir'] });
}

/** Whether DATA_DIR holds Sightline's data: its database, which the server or `workspace create` made there. */
export function holdsSightlineData(dataDir: string): boolean {
  return existsSync(databasePath(dataDir));
}

/**
 * The refusal of a command run on a directory without Sightline's data: without it, a mistyped or forgotten
 * DATA_DIR silently made a new empty database (in ./data by default) and answered from it, an empty list with exit 0.
 */
export function noDataRefusal(args: { 'data-dir'?: string | undefined }, dataDir: string): ApiError {
  const given = args['data-dir'] !== undefined ? '--data-dir' : process.env.DATA_DIR ? 'DATA_DIR' : undefined;
  const where = given ? `${resolve(dataDir)} (from ${given})` : `${resolve(dataDir)} (the default ./data: neither --data-dir nor DATA_DIR was given)`;
  return new ApiError(
    404,
    'no_data',
    `No Sightline data in ${where}. Pass --data-dir DIR or set DATA_DIR to the server's data directory, or start a new one there with sightline workspace create or sightline serve`,
  );
}

/**
 * Opens DATA_DIR's database (safe while a server runs on it: WAL plus a busy timeout) for one command. Only a command
 * that starts from nothing (`creates: true`: workspace create) may create it; every other one refuses a directory
 * without Sightline's data (noDataRefusal).
 */
export async function withContext<T>(
  args: { 'data-dir'?: string | undefined },
  work: (context: AppContext) => T | Promise<T>,
  options: { creates?: boolean } = {},
): Promise<T> {
  const config = cliConfig(args);
  if (!options.creates && !holdsSightlineData(config.dataDir)) throw noDataRefusal(args, config.dataDir);
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

/** The site `siteId` of `workspace`; one of another workspace is as missing as an unknown one. */
export function requireSite(context: AppContext, workspace: WorkspaceRow, siteId: string): SiteRow {
  const site = findSite(context.db, siteId);
  if (!site || site.workspace_id !== workspace.id) throw ApiError.notFound(`No site ${siteId} in workspace ${workspace.slug}`);
  return site;
}

/**
 * Parses the flags' values with a body schema of the API; `flagOfField` names the flags whose name is not the field's
 * (`{ event_types: 'events' }`), so that a refusal points at the flag the user typed.
 * @example parseFlags(CreateEndpointBody, { url, event_types }, { event_types: 'events' })
 */
export function parseFlags<TSchema extends v.GenericSchema>(schema: TSchema, input: unknown, flagOfField: Record<string, string> = {}): v.InferOutput<TSchema> {
  try {
    return parseBody(schema, input);
  } catch (error) {
    if (!(error instanceof ApiError) || !error.details) throw error;
    const details = error.details.map((detail) => {
      const [, field, ...rest] = detail.path.split('/');
      const flag = field === undefined ? undefined : flagOfField[field];
      return flag === undefined ? detail : { ...detail, path: ['', flag, ...rest].join('/') };
    });
    throw new ApiError(error.status, error.code, error.message, details, error.headers, error.extra);
  }
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
        const details = (error.details ?? []).map((detail) => `${toFlagName(detail.path)}: ${detail.message}`);
        // A refused file names its bad lines (spend import).
        const rows = error.extra?.rows;
        if (Array.isArray(rows)) for (const row of rows as { line: number; message: string }[]) details.push(`line ${row.line}: ${row.message}`);
        printError(`${message} (${error.code})`, details);
      }
      return;
    }
    printError(error instanceof Error ? error.message : String(error));
  }
}

/** A body pointer as the flag that supplied it: /slug → --slug, /retention_days → --retention-days, /scopes/1 → --scopes (item 2). */
function toFlagName(pointer: string): string {
  const [field, ...rest] = pointer.split('/').slice(1);
  if (!field) return '(arguments)';
  const flag = `--${field.replaceAll('_', '-')}`;
  if (rest.length === 1 && /^\d+$/.test(rest[0]!)) return `${flag} (item ${Number(rest[0]) + 1})`;
  return [flag, ...rest].join('/');
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
