// `sightline admin-token`: prints the operator token of DATA_DIR (or ADMIN_TOKEN when set).
import { defineCommand } from 'citty';
import { readAdminTokenFile } from '../admin/admin-token.ts';
import { ApiError } from '../http/errors.ts';
import { cliConfig, commonArgs, holdsSightlineData, noDataRefusal, runCommandSafely } from './common.ts';

export const adminTokenCommand = defineCommand({
  meta: { name: 'admin-token', description: 'Print the admin token' },
  args: { ...commonArgs },
  run: ({ args }) =>
    runCommandSafely(args, () => {
      const config = cliConfig(args);
      const token = config.adminToken ?? readAdminTokenFile(config.dataDir);
      if (!token && !holdsSightlineData(config.dataDir)) throw noDataRefusal(args, config.dataDir);
      if (!token) throw new ApiError(404, 'not_found', `No admin token yet: start the server once on ${config.dataDir}`);
      process.stdout.write(args.json ? `${JSON.stringify({ admin_token: token })}\n` : `${token}\n`);
    }),
});
