// `sightline backup --to FILE`: an online, consistent copy of both database files through SQLite's backup API, safe
// while a server writes: sightline.db to FILE, the event log (events.db) beside it (FILE's name with .events.db).
// sightline.db first: the copied event log then holds at least every event the copied projector position counts.
import { defineCommand } from 'citty';
import { existsSync } from 'node:fs';
import { eventLogSchema } from '../db/open.ts';
import { eventLogBackupPath } from '../db/upgrade-backup.ts';
import { ApiError } from '../http/errors.ts';
import { commonArgs, output, runCommandSafely, withContext } from './common.ts';

export const backupCommand = defineCommand({
  meta: { name: 'backup', description: 'Write a consistent copy of both database files: FILE and FILE with .events.db' },
  args: { ...commonArgs, to: { type: 'string', description: 'Destination of sightline.db (must not exist; the event log goes beside it)', required: true } },
  run: ({ args }) =>
    runCommandSafely(args, async () => {
      const eventsTo = eventLogBackupPath(args.to);
      for (const path of [args.to, eventsTo]) if (existsSync(path)) throw new ApiError(409, 'exists', `${path} already exists`);
      await withContext(args, async (context) => {
        // All pages in one step: a step-wise backup starts over whenever another connection writes the file, so
        // under steady ingest (or projector batches) it might never finish. One step reads one consistent snapshot.
        const wholeFile = () => 0x7fffffff;
        const main = await context.db.backup(args.to, { progress: wholeFile });
        // better-sqlite3 takes `attached` (the schema to copy); its type declarations do not list it.
        const events = await context.db.backup(eventsTo, { attached: eventLogSchema, progress: wholeFile } as unknown as Parameters<typeof context.db.backup>[1]);
        output(args, { to: args.to, events_to: eventsTo, pages: main.totalPages, event_pages: events.totalPages }, () =>
          `Backed up ${main.totalPages} pages to ${args.to} and the event log's ${events.totalPages} pages to ${eventsTo}\nRestore: stop the server, remove DATA_DIR's *-wal and *-shm files, copy these into DATA_DIR as sightline.db and events.db`,
        );
      });
    }),
});
