// Cookieless visitor ids (docs/tracker.md, "Cookieless visitors"). On a cookieless site, a browser event without
// anon_id gets HMAC-SHA256(salt of the day, site id, client IP, user agent) as its anon_id, computed before the
// event is stored. The salt is random per UTC day; only yesterday's (for events that arrive late), today's and
// tomorrow's (made ahead, so midnight needs no write) exist, older ones are deleted, so nobody can recompute an old
// day's ids. The IP is only an HMAC input.
//
// An event reads its salt from memory and writes nothing. The salts are stored and deleted by a maintenance on a
// one-second timer on this (the HTTP) thread, never waiting: its writes run with the busy timeout off, so while
// another connection (a projector batch, an administrative write) holds sightline.db's write lock they fail at once
// and are tried again a second later. Until then a day's salt is in memory only, and it is the one stored later.
// (A write that waited froze the whole server for up to 5 s, then answered 500: issue 24.)
import { consola } from 'consola';
import { createHmac } from 'node:crypto';
import { type Clock, type Random, toIso } from '../clock.ts';
import type { Db } from '../db/open.ts';
import { runWithoutWaiting } from '../db/statements.ts';
import { findSite } from '../tenants/queries/find-site.ts';
import { deleteSaltsBefore, readSaltsFrom, saltOfDay } from './queries/salts.ts';

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
   * The visitor id of a browser on a site. The salt is that of the event's UTC day when it is today or yesterday
   * (yesterday's while it exists), else today's (an event from further back, or minutes ahead across midnight).
   * Never touches the database's write lock: the salt comes from memory.
   */
  visitorId(siteId: string, clientIp: string | null, userAgent: string | null, eventMs: number): string;
  /**
   * The maintenance, never waiting: stores today's and tomorrow's salts and deletes those older than yesterday where
   * not done yet. Runs at start and every second (it does nothing once done for the day).
   */
  rotate(): void;
  /** Stops the timer after a last try at what is left to store (the projector has stopped by then). */
  stop(): void;
}

/** How often the salts are looked after: a write that found the lock taken is tried again this much later. */
const maintenanceIntervalMs = 1000;
/** A write that failed otherwise than on a busy lock (a full disk) is logged at most this often. */
const failureLogIntervalMs = 60 * 60 * 1000;

/** The live instance per database handle, so a change of the setting (or a site deletion) reaches its cache. */
const instances = new WeakMap<Db, CookielessVisitors>();

/** Call after changing a site's setting or deleting the site: the next event reads the setting again. */
export function forgetCookielessSetting(db: Db, siteId: string): void {
  instances.get(db)?.forget(siteId);
}

function isBusy(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'SQLITE_BUSY';
}

export function createCookielessVisitors(db: Db, clock: Clock, random: Random): CookielessVisitors {
  const settings = new Map<string, { cookieless: boolean; checkedAt: number }>();
  // The salts of yesterday, today and tomorrow, by day number; `stored`: the days whose salt here is the stored one.
  const salts = new Map<number, Buffer>();
  const stored = new Set<number>();
  let today = dayNumber(clock.now());
  // Salts of days before it are known to be deleted.
  let deletedBefore = Number.NEGATIVE_INFINITY;
  let failureLoggedAt = Number.NEGATIVE_INFINITY;

  // What an earlier start (or another process) stored: a restart keeps the day's ids. A read never waits.
  for (const row of readSaltsFrom(db, dayText(today - 1))) {
    const day = dayNumber(Date.parse(row.day));
    if (day > today + 1) continue;
    salts.set(day, row.salt);
    stored.add(day);
  }

  /** Memory follows the clock: salts outside yesterday..tomorrow go, today's and tomorrow's exist (maybe unstored). */
  const roll = (day: number) => {
    today = day;
    for (const known of [...salts.keys()]) {
      if (known >= day - 1 && known <= day + 1) continue;
      salts.delete(known);
      stored.delete(known);
    }
    for (const next of [day, day + 1]) if (!salts.has(next)) salts.set(next, random.bytes(32));
  };

  const attempt = (write: () => void): boolean => {
    try {
      runWithoutWaiting(db, write);
      return true;
    } catch (error) {
      if (!isBusy(error) && Date.now() - failureLoggedAt >= failureLogIntervalMs) {
        failureLoggedAt = Date.now();
        consola.warn('cookieless visitors: the daily salts could not be written (tried again every second):', error);
      }
      return false;
    }
  };

  /** The writes still to do, each failing at once while the lock is taken; nothing once done for the day. */
  const store = () => {
    const createdAt = toIso(clock.now());
    for (const day of [today, today + 1]) {
      if (stored.has(day)) continue;
      attempt(() => {
        // Another process may have stored the day's salt first: its salt is the day's, here too from now on.
        salts.set(day, saltOfDay(db, dayText(day), salts.get(day)!, createdAt));
        stored.add(day);
      });
    }
    if (deletedBefore < today - 1 && attempt(() => deleteSaltsBefore(db, dayText(today - 1)))) deletedBefore = today - 1;
  };

  const rotate = () => {
    roll(dayNumber(clock.now()));
    store();
  };
  rotate();

  const timer = setInterval(() => {
    if (db.open) rotate();
  }, maintenanceIntervalMs);
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
      // A new day: its salt was made ahead (stored, unless the lock was taken all along); the timer deletes the old.
      const day = dayNumber(clock.now());
      if (day !== today) roll(day);
      const eventDay = dayNumber(eventMs);
      const salt = (eventDay === today - 1 && salts.get(eventDay)) || salts.get(today)!;
      const digest = createHmac('sha256', salt).update(`${siteId}\n${clientIp ?? ''}\n${userAgent ?? ''}`).digest('base64url');
      return derivedIdPrefix + digest.slice(0, 22);
    },
    rotate,
    stop() {
      clearInterval(timer);
      // A clean stop keeps the day's ids for the next start, unless another process holds the lock right now.
      if (db.open) store();
    },
  };
  instances.set(db, visitors);
  return visitors;
}
