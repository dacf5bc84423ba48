// The `sightline` command tree (citty): every command and group, as the executable runs it and as the tests walk it.
import { defineCommand } from 'citty';
import { sightlineVersion } from '../version.ts';
import { adminTokenCommand } from './admin-token.ts';
import { backupCommand } from './backup.ts';
import { clickhouseCommand } from './clickhouse.ts';
import { doctorCommand } from './doctor.ts';
import { endpointCommand } from './endpoint.ts';
import { exportCommand } from './export.ts';
import { importCommand } from './import.ts';
import { keyCommand } from './key.ts';
import { planCommand } from './plan.ts';
import { reportCommand } from './report.ts';
import { serveCommand } from './serve.ts';
import { shareLinkCommand } from './share-link.ts';
import { siteCommand } from './site.ts';
import { spendCommand } from './spend.ts';
import { memberCommand, userCommand } from './user.ts';
import { versionCommand } from './version.ts';
import { webhookSecretCommand } from './webhook-secret.ts';
import { workspaceCommand } from './workspace.ts';

export const sightlineCommand = defineCommand({
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

