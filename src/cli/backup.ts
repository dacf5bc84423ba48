// `sightline backup --to FILE`: an online, consistent copy of both database files through SQLite's backup API, safe
// while a server writes: sightline.db to FILE, the event log (events.db) beside it (FILE's name with .events.db),
// and the key that opens the sealed secrets (secrets.key) beside them (FILE's name with .secrets.key).
// sightline.db first: the copied event log then holds at least every event the copied projector position counts.
// The key last: a secret sealed in the copied database was sealed with a key that existed before the copy began.
import { defineCommand } from 'citty';
import { existsSync } from 'node:fs';
import { eventLogSchema } from '../db/open.ts';
import { eventLogBackupPath } from '../db/upgrade-backup.ts';
import { ApiError } from '../http/errors.ts';
import { copySecretKey, secretKeyFileName } from '../secrets/secret-box.ts';
import { commonArgs, output, runCommandSafely, withContext } from './common.ts';

/** Where the key's copy goes: backup.db → backup.secrets.key (any other name gets .secrets.key appended). */
export function secretKeyBackupPath(file: string): string {
  return file.endsWith('.db') ? `${file.slice(0, -3)}.secrets.key` : `${file}.secrets.key`;
}

export const backupCommand = defineCommand({
  meta: { name: 'backup', description: 'Write a consistent copy of both database files and the secrets key: FILE, FILE with .events.db and with .secrets.key' },
  args: { ...commonArgs, to: { type: 'string', description: 'Destination of sightline.db (must not exist; the event log and the secrets key go beside it)', required: true } },
  run: ({ args }) =>
    runCommandSafely(args, async () => {
      const eventsTo = eventLogBackupPath(args.to);
      const keyTo = secretKeyBackupPath(args.to);
      for (const path of [args.to, eventsTo, keyTo]) if (existsSync(path)) throw new ApiError(409, 'exists', `${path} already exists`);
      await withContext(args, async (context) => {
        // All pages in one step: a step-wise backup starts over whenever another connection writes the file, so
        // under steady ingest (or projector batches) it might never finish. One step reads one consistent snapshot.
        const wholeFile = () => 0x7fffffff;
        const main = await context.db.backup(args.to, { progress: wholeFile });
        // better-sqlite3 takes `attached` (the schema to copy); its type declarations do not list it.
        const events = await context.db.backup(eventsTo, { attached: eventLogSchema, progress: wholeFile } as unknown as Parameters<typeof context.db.backup>[1]);
        const keyCopied = copySecretKey(context.config.dataDir, keyTo);
        output(args, { to: args.to, events_to: eventsTo, key_to: keyCopied ? keyTo : null, pages: main.totalPages, event_pages: events.totalPages }, () =>
          [
            `Backed up ${main.totalPages} pages to ${args.to} and the event log's ${events.totalPages} pages to ${eventsTo}`,
            keyCopied ? `and the secrets key to ${keyTo} (it opens the sealed webhook secrets: keep it as private as the data directory)` : `No ${secretKeyFileName} yet (no secret was ever sealed): nothing else to copy`,
            `Restore: stop the server, remove DATA_DIR's *-wal and *-shm files, copy these into DATA_DIR as sightline.db and events.db${keyCopied ? ` and ${secretKeyFileName} (mode 0600)` : ''}`,
          ].join('\n'),
        );
      });
    }),
});
