// What every route handler and action receives: the database, the configuration, the injected clock/randomness, and
// what the app composed for them (src/app.ts, createAppContext): the access resolver's lookups and what deleting a
// site removes.
import type { AccessContext } from './access/lookups.ts';
import type { Random } from './clock.ts';
import type { Db } from './db/open.ts';
import type { SiteDataRemover } from './tenants/site-data.ts';

/** Besides db and random: config, clock, adminToken (the operator credential) and access (AccessContext). */
export interface AppContext extends AccessContext {
  db: Db;
  random: Random;
  /** Every remover of a site's data (src/app.ts, siteDataRemovers): deleting a site runs them all. */
  siteDataRemovers: readonly SiteDataRemover[];
}
