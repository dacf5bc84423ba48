// Sightline's version (package.json's, semver) and the versions of what runs it: `sightline --version`, GET /v1/version.
import packageJson from '../package.json' with { type: 'json' };
import { sqliteLibraryVersion } from './db/open.ts';

export const sightlineVersion: string = packageJson.version;

export interface Versions {
  sightline: string;
  node: string;
  sqlite: string;
}

let sqlite: string | undefined;

/** The three versions; SQLite's is asked once (select sqlite_version() on an in-memory database). */
export function runtimeVersions(): Versions {
  sqlite ??= sqliteLibraryVersion();
  return { sightline: sightlineVersion, node: process.versions.node, sqlite };
}

/**
 * One line for `sightline --version`.
 * @example describeVersions(runtimeVersions()) // 'sightline 0.1.0 (Node.js 24.21.0, SQLite 3.51.1)'
 */
export function describeVersions(versions: Versions): string {
  return `sightline ${versions.sightline} (Node.js ${versions.node}, SQLite ${versions.sqlite})`;
}
