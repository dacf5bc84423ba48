// Cookieless visitor ids (docs/tracker.md, "Cookieless visitors"). On a cookieless site, a browser event without
// anon_id gets HMAC-SHA256(salt of the day, site id, client IP, user agent) as its anon_id, computed before the
// event is stored. The salt is random per UTC day; only today's and yesterday's exist (yesterday's for events that
// arrive late), older ones are deleted, so nobody can recompute an old day's ids. The IP is only an HMAC input.
import { createHmac } from 'node:crypto';
import { type Clock, type Random, toIso } from '../clock.ts';
import type { Db } from '../db/open.ts';
import { findSite } from '../tenants/queries/find-site.ts';
import { deleteSaltsBefore, saltOfDay } from './queries/salts.ts';

const dayMs = 24 * 60 * 60 * 1000;
/** As the ingest site cache: a setting changed by another process (the CLI) applies at most a second later. */
const settingTtlMs = 1000;
const settingCacheLimit = 10_000;
/** Every derived id starts with it, so a report reader can tell them from ids a client sent. */
export const derivedIdPrefix = 'cl_';

/** The UTC day number of an epoch-ms time (days since 1970-01-01). */
function dayNumber(ms: number): number {
  return Math.floor(ms / dayMs);
}

/** YYYY-MM-DD of a day number, as visitor_salts keys its rows. */
function dayText(day: number): string {
  return toIso(day * dayMs).slice(0, 10);
}

export interface CookielessVisitors {
  /** Whether the site is cookieless (cached for a second); false for a missing site. */
  isCookieless(siteId: string): boolean;
  /** Forgets a site's cached setting (the setting changed, or the site was deleted). */
  forget(siteId: string): void;
  /**
   * The visitor id of a browser on a site. The salt is that of the event's UTC day when it is today or yesterday,
   * else today's (an event from further back, or minutes ahead across midnight).
   */
  visitorId(siteId: string, clientIp: string | null, userAgent: string | null, eventMs: number): string;
  /** Deletes the salts older than yesterday; runs on its own at each new day and every hour. */
  rotate(): void;
  stop(): void;
}

/** The live instance per database handle, so a change of the setting (or a site deletion) reaches its cache. */
const instances = new WeakMap<Db, CookielessVisitors>();

/** Call after changing a site's setting or deleting the site: the next event reads the setting again. */
export function forgetCookielessSetting(db: Db, siteId: string): void {
  instances.get(db)?.forget(siteId);
}

export function createCookielessVisitors(db: Db, clock: Clock, random: Random): CookielessVisitors {
  const settings = new Map<string, { cookieless: boolean; checkedAt: number }>();
  // The salts of the days in use, by day number; never more than two (cleared at each new day).
  const salts = new Map<number, Buffer>();
  let today = -1;

  const rotate = () => {
    today = dayNumber(clock.now());
    salts.clear();
    deleteSaltsBefore(db, dayText(today - 1));
  };

  const saltOf = (day: number): Buffer => {
    let salt = salts.get(day);
    if (!salt) {
      salt = saltOfDay(db, dayText(day), random.bytes(32), toIso(clock.now()));
      salts.set(day, salt);
    }
    return salt;
  };

  const timer = setInterval(() => {
    try {
      rotate();
    } catch {
      // A busy database: the next hour, or the next event of a new day, tries again.
    }
  }, 60 * 60 * 1000);
  timer.unref();

  const visitors: CookielessVisitors = {
    isCookieless(siteId) {
      const now = clock.now();
      let entry = settings.get(siteId);
      if (!entry || now - entry.checkedAt >= settingTtlMs) {
        if (settings.size >= settingCacheLimit) settings.clear();
        // The setting is a column of the site's row, whose SQL tenants/ owns (admin/sites.ts writes it).
        entry = { cookieless: findSite(db, siteId)?.cookieless === 1, checkedAt: now };
        settings.set(siteId, entry);
      }
      return entry.cookieless;
    },
    forget(siteId) {
      settings.delete(siteId);
    },
    visitorId(siteId, clientIp, userAgent, eventMs) {
      if (dayNumber(clock.now()) !== today) rotate();
      const eventDay = dayNumber(eventMs);
      const day = eventDay === today || eventDay === today - 1 ? eventDay : today;
      const digest = createHmac('sha256', saltOf(day))
        .update(`${siteId}\n${clientIp ?? ''}\n${userAgent ?? ''}`)
        .digest('base64url');
      return derivedIdPrefix + digest.slice(0, 22);
    },
    rotate,
    stop() {
      clearInterval(timer);
    },
  };
  instances.set(db, visitors);
  return visitors;
}
