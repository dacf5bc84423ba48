// The `sightline` executable: serve, administration commands and diagnostics (citty).
import { defineCommand } from 'citty';
import { adminTokenCommand } from './cli/admin-token.ts';
import { backupCommand } from './cli/backup.ts';
import { clickhouseCommand } from './cli/clickhouse.ts';
import { runCommandLine } from './cli/command-line.ts';
import { doctorCommand } from './cli/doctor.ts';
import { endpointCommand } from './cli/endpoint.ts';
import { exportCommand } from './cli/export.ts';
import { importCommand } from './cli/import.ts';
import { keyCommand } from './cli/key.ts';
import { memberCommand, userCommand } from './cli/user.ts';
import { planCommand } from './cli/plan.ts';
import { reportCommand } from './cli/report.ts';
import { serveCommand } from './cli/serve.ts';
import { shareLinkCommand } from './cli/share-link.ts';
import { siteCommand } from './cli/site.ts';
import { spendCommand } from './cli/spend.ts';
import { webhookSecretCommand } from './cli/webhook-secret.ts';
import { versionCommand } from './cli/version.ts';
import { workspaceCommand } from './cli/workspace.ts';
import { restrictNewFileModes } from './db/file-modes.ts';
import { sightlineVersion } from './version.ts';

const main = defineCommand({
  meta: { name: 'sightline', version: sightlineVersion, description: 'Self-hosted, privacy-first web analytics' },
  subCommands: {
    serve: serveCommand,
    workspace: workspaceCommand,
    site: siteCommand,
    'share-link': shareLinkCommand,
    key: keyCommand,
    user: userCommand,
    member: memberCommand,
    spend: spendCommand,
    import: importCommand,
    export: exportCommand,
    endpoint: endpointCommand,
    plan: planCommand,
    report: reportCommand,
    'webhook-secret': webhookSecretCommand,
    'admin-token': adminTokenCommand,
    backup: backupCommand,
    clickhouse: clickhouseCommand,
    doctor: doctorCommand,
    version: versionCommand,
  },
});

// Before any command runs: every file and directory the CLI or the server creates is private (0600, 0700).
restrictNewFileModes();
// `--version` alone prints all three versions (citty's own would print Sightline's only).
const rawArgs = process.argv.slice(2);
// No top-level await: the single executable's bundle is CommonJS. runCommandLine reports its own errors and exit status.
void runCommandLine(main, rawArgs.length === 1 && (rawArgs[0] === '--version' || rawArgs[0] === '-v') ? ['version'] : rawArgs);
