// What every route handler and action receives: the database, the configuration and the injected clock/randomness.
import type { Clock, Random } from './clock.ts';
import type { Config } from './config.ts';
import type { Db } from './db/open.ts';

export interface AppContext {
  db: Db;
  config: Config;
  clock: Clock;
  random: Random;
  /** The operator credential (CONTRACT section 1: from ADMIN_TOKEN or DATA_DIR/admin-token). */
  adminToken: string;
}
