// `sightline backup --to FILE`: an online, consistent copy through SQLite's backup API, safe while a server writes.
import { defineCommand } from 'citty';
import { existsSync } from 'node:fs';
import { ApiError } from '../http/errors.ts';
import { commonArgs, output, runCommandSafely, withContext } from './common.ts';

export const backupCommand = defineCommand({
  meta: { name: 'backup', description: 'Write a consistent copy of the database to FILE' },
  args: { ...commonArgs, to: { type: 'string', description: 'Destination file (must not exist)', required: true } },
  run: ({ args }) =>
    runCommandSafely(args, async () => {
      if (existsSync(args.to)) throw new ApiError(409, 'exists', `${args.to} already exists`);
      await withContext(args, async (context) => {
        const result = await context.db.backup(args.to);
        output(args, { to: args.to, pages: result.totalPages }, () => `Backed up ${result.totalPages} pages to ${args.to}`);
      });
    }),
});
