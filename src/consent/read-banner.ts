// GET /v2/sites/:siteId/consent-banner/config: the saved banner, or before the first save a default one at
// config_version 0 (the version the first save sends).
import type { SiteRow } from '../tenants/queries/find-site.ts';
import type { AppContext } from '../context.ts';
import type { BannerAnswer } from './answers.ts';
import { type BannerConfig, defaultBannerConfig } from './banner-config.ts';
import { findBanner } from './queries/banner-rows.ts';

/**
 * @example readBanner(context, site) // → { config_version: 0, consent_revision: 1, config: { title: 'We value your privacy', … }, updated_at: null }
 */
export function readBanner(context: AppContext, site: SiteRow): BannerAnswer {
  const row = findBanner(context.db, site.id);
  if (!row) return { config_version: 0, consent_revision: 1, config: defaultBannerConfig, updated_at: null };
  return { config_version: row.config_version, consent_revision: row.consent_revision, config: JSON.parse(row.config) as BannerConfig, updated_at: row.updated_at };
}
