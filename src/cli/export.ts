// `sightline export --site S --from D --to D [--format ndjson|csv] [--output FILE]`: the same stream as GET
// /v1/sites/:siteId/export, written a page at a time to a file or stdout (bounded memory whatever the site holds).
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { defineCommand } from 'citty';
import { ApiError } from '../http/errors.ts';
import { parseDateRange } from '../reading/common-params.ts';
import { findSite } from '../tenants/queries/find-site.ts';
import { exportChunks } from '../exports/export-stream.ts';
import { plausibleZipChunks } from '../exports/plausible-zip.ts';
import { createSqliteReadModel } from '../read-model/sqlite/sqlite-read-model.ts';
import { parseExportFormat } from '../exports/routes.ts';
import { commonArgs, runCommandSafely, withContext } from './common.ts';

const dayMs = 86_400_000;

export const exportCommand = defineCommand({
  meta: { name: 'export', description: "Export a site's stored events of a UTC day range as ndjson (derived fields and the raw event), csv, or plausible-csv" },
  args: {
    ...commonArgs,
    site: { type: 'string', description: 'Site id', required: true },
    from: { type: 'string', description: 'First day, YYYY-MM-DD (UTC)', required: true },
    to: { type: 'string', description: 'Last day, YYYY-MM-DD (UTC)', required: true },
    format: { type: 'string', description: 'ndjson (default), csv or plausible-csv (a zip in Plausible\'s import layout)' },
    output: { type: 'string', description: 'File to write (default: stdout)' },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, async (context) => {
        const site = findSite(context.db, args.site);
        if (!site) throw ApiError.notFound(`No site ${args.site}`);
        const { range } = parseDateRange({ from: args.from, to: args.to });
        const format = parseExportFormat({ format: args.format });
        const out = args.output ? createWriteStream(args.output, { mode: 0o600 }) : process.stdout;
        const readModel = createSqliteReadModel({ db: context.db, waitForProjection: async () => true });
        const chunks =
          format === 'plausible-csv'
            ? plausibleZipChunks(readModel, { siteIds: [site.id], workspaceId: site.workspace_id }, range)
            : exportChunks(context.db, { siteId: site.id, fromMs: range.fromDay * dayMs, toMs: (range.toDay + 1) * dayMs }, format);
        for await (const chunk of chunks) {
          // Backpressure: a slow disk or pipe holds the next page's read.
          if (!out.write(chunk)) await once(out, 'drain');
        }
        if (out !== process.stdout) {
          out.end();
          await once(out, 'finish');
        }
      }),
    ),
});
