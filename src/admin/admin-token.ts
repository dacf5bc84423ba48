// The operator credential: ADMIN_TOKEN if set, else DATA_DIR/admin-token, generated (mode 0600) on first start.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Random } from '../clock.ts';
import type { Config } from '../config.ts';
import { createPrivateDirectory, privateFileMode } from '../db/file-modes.ts';

export interface AdminTokenResolution {
  token: string;
  /** True only on the start that created the file: the token is printed then, and never again. */
  generated: boolean;
  path: string | undefined;
}

export function adminTokenPath(dataDir: string): string {
  return join(dataDir, 'admin-token');
}

export function readAdminTokenFile(dataDir: string): string | undefined {
  try {
    return readFileSync(adminTokenPath(dataDir), 'utf8').trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export function resolveAdminToken(config: Config, random: Random): AdminTokenResolution {
  if (config.adminToken) return { token: config.adminToken, generated: false, path: undefined };
  const path = adminTokenPath(config.dataDir);
  const existing = readAdminTokenFile(config.dataDir);
  if (existing) return { token: existing, generated: false, path };
  createPrivateDirectory(config.dataDir);
  const token = `sla_${random.bytes(32).toString('base64url')}`;
  try {
    // 'wx': if another process created it a moment ago, keep theirs.
    writeFileSync(path, `${token}\n`, { mode: privateFileMode, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { token: readAdminTokenFile(config.dataDir)!, generated: false, path };
  }
  return { token, generated: true, path };
}
