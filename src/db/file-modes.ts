// DATA_DIR is private: its files hold the cursor secret, key hashes, user ids and raw events, so a directory
// Sightline creates is 0700 and every file it creates is 0600 (docs/architecture.md, "Storage").
import { closeSync, mkdirSync, openSync } from 'node:fs';

export const privateDirectoryMode = 0o700;
export const privateFileMode = 0o600;

/**
 * Takes group and other permissions off everything this process creates from now on: database files, their -wal
 * and -shm, backups, the admin token. Called first thing by the CLI entry (src/main.ts); worker threads share the
 * process's umask.
 * @example restrictNewFileModes();
 */
export function restrictNewFileModes(): void {
  process.umask(0o077);
}

/**
 * Creates `directory` (and missing parents) with mode 0700; an existing directory keeps its mode (doctor warns on
 * a loose one rather than changing an operator's directory).
 * @example createPrivateDirectory('./data');
 */
export function createPrivateDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: privateDirectoryMode });
}

/**
 * Creates an empty database file with mode 0600 unless it exists, so that it is private whatever the umask of the
 * process that opens it: SQLite gives a database's -wal and -shm files the database file's mode.
 * @example createPrivateFile('./data/sightline.db');
 */
export function createPrivateFile(path: string): void {
  closeSync(openSync(path, 'a', privateFileMode));
}
