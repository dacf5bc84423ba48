// The `sightline` executable: serve, administration commands and diagnostics (citty).
import { defineCommand, runMain } from 'citty';
import { adminTokenCommand } from './cli/admin-token.ts';
import { backupCommand } from './cli/backup.ts';
import { doctorCommand } from './cli/doctor.ts';
import { endpointCommand } from './cli/endpoint.ts';
import { keyCommand } from './cli/key.ts';
import { planCommand } from './cli/plan.ts';
import { serveCommand } from './cli/serve.ts';
import { siteCommand } from './cli/site.ts';
import { spendCommand } from './cli/spend.ts';
import { webhookSecretCommand } from './cli/webhook-secret.ts';
import { workspaceCommand } from './cli/workspace.ts';
import { restrictNewFileModes } from './db/file-modes.ts';

const main = defineCommand({
  meta: { name: 'sightline', description: 'Self-hosted, privacy-first web analytics' },
  subCommands: {
    serve: serveCommand,
    workspace: workspaceCommand,
    site: siteCommand,
    key: keyCommand,
    spend: spendCommand,
    endpoint: endpointCommand,
    plan: planCommand,
    'webhook-secret': webhookSecretCommand,
    'admin-token': adminTokenCommand,
    backup: backupCommand,
    doctor: doctorCommand,
  },
});

// Before any command runs: every file and directory the CLI or the server creates is private (0600, 0700).
restrictNewFileModes();
await runMain(main);
