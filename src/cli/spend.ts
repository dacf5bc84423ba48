// `sightline spend import --workspace S FILE.csv`: spend kept in a spreadsheet, imported with the same rules as
// POST /workspaces/:slug/spend/csv (all or nothing, every bad line named, the same size cap).
import { readFileSync, statSync } from 'node:fs';
import { defineCommand } from 'citty';
import { ApiError } from '../http/errors.ts';
import { decodeSpendCsv, importSpendCsv, maxCsvBytes } from '../spend/import-spend-csv.ts';
import { commonArgs, output, requireWorkspace, runCommandSafely, systemActor, withContext } from './common.ts';

/** The file as text, refused past the cap before it is read and when it is not UTF-8 (as the endpoint refuses the body). */
function readCsvFile(path: string): string {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new Error(`Cannot read ${path}`);
  }
  if (size > maxCsvBytes) throw ApiError.payloadTooLarge(maxCsvBytes);
  return decodeSpendCsv(readFileSync(path));
}

const importCommand = defineCommand({
  meta: { name: 'import', description: `Import spend from a CSV file (header date,source,medium,campaign,amount,currency; at most ${maxCsvBytes} bytes; all or nothing)` },
  args: {
    ...commonArgs,
    workspace: { type: 'string', description: 'Workspace slug', required: true },
    file: { type: 'positional', description: 'CSV file', required: true },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const workspace = requireWorkspace(context, args.workspace);
        const result = importSpendCsv(context, systemActor, workspace, readCsvFile(args.file));
        output(args, result, () => `Imported ${result.imported} spend ${result.imported === 1 ? 'entry' : 'entries'} into ${workspace.slug}`);
      }),
    ),
});

export const spendCommand = defineCommand({
  meta: { name: 'spend', description: 'Manage marketing spend' },
  subCommands: { import: importCommand },
});
