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

/**
 * The salts of yesterday, today and tomorrow, kept in memory: an event takes its salt from here and never touches
 * the database; the writes (a new day's salt, deleting old ones) are tried on a timer and never wait for the lock.
 */
class DailySalts {
  private readonly salts = new Map<number, Buffer>();
  /** The days whose salt here is the stored one. */
  private readonly stored = new Set<number>();
  private today: number;
  /** Salts of days before it are known to be deleted. */
  private deletedBefore = Number.NEGATIVE_INFINITY;
  private failureLoggedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {
    this.today = dayNumber(clock.now());
    // What an earlier start (or another process) stored: a restart keeps the day's ids. A read never waits.
    for (const row of readSaltsFrom(db, dayText(this.today - 1))) {
      const day = dayNumber(Date.parse(row.day));
      if (day > this.today + 1) continue;
      this.salts.set(day, row.salt);
      this.stored.add(day);
    }
  }

  /** The salt of an event's day: yesterday's for a late event of yesterday, else today's. */
  saltFor(eventMs: number): Buffer {
    // A new day: its salt was made ahead (stored, unless the lock was taken all along); the timer deletes the old.
    const day = dayNumber(this.clock.now());
    if (day !== this.today) this.roll(day);
    const eventDay = dayNumber(eventMs);
    return (eventDay === this.today - 1 && this.salts.get(eventDay)) || this.salts.get(this.today)!;
  }

  rotate(): void {
    this.roll(dayNumber(this.clock.now()));
    this.store();
  }

  /** The writes still to do, each failing at once while the lock is taken; nothing once done for the day. */
  store(): void {
    const createdAt = toIso(this.clock.now());
    for (const day of [this.today, this.today + 1]) {
      if (this.stored.has(day)) continue;
      this.attempt(() => {
        // Another process may have stored the day's salt first: its salt is the day's, here too from now on.
        this.salts.set(day, saltOfDay(this.db, dayText(day), this.salts.get(day)!, createdAt));
        this.stored.add(day);
      });
    }
    if (this.deletedBefore < this.today - 1 && this.attempt(() => deleteSaltsBefore(this.db, dayText(this.today - 1)))) this.deletedBefore = this.today - 1;
  }

  /** Memory follows the clock: salts outside yesterday..tomorrow go, today's and tomorrow's exist (maybe unstored). */
  private roll(day: number): void {
    this.today = day;
    for (const known of [...this.salts.keys()]) {
      if (known >= day - 1 && known <= day + 1) continue;
      this.salts.delete(known);
      this.stored.delete(known);
    }
    for (const next of [day, day + 1]) if (!this.salts.has(next)) this.salts.set(next, this.random.bytes(32));
  }

  private attempt(write: () => void): boolean {
    try {
      runWithoutWaiting(this.db, write);
      return true;
    } catch (error) {
      if (!isBusy(error) && Date.now() - this.failureLoggedAt >= failureLogIntervalMs) {
        this.failureLoggedAt = Date.now();
        consola.warn('cookieless visitors: the daily salts could not be written (tried again every second):', error);
      }
      return false;
    }
  }
}

export function createCookielessVisitors(db: Db, clock: Clock, random: Random): CookielessVisitors {
  const settings = new Map<string, { cookieless: boolean; checkedAt: number }>();
  const salts = new DailySalts(db, clock, random);
  const rotate = () => salts.rotate();
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
      const digest = createHmac('sha256', salts.saltFor(eventMs)).update(`${siteId}\n${clientIp ?? ''}\n${userAgent ?? ''}`).digest('base64url');
      return derivedIdPrefix + digest.slice(0, 22);
    },
    rotate,
    stop() {
      clearInterval(timer);
      // A clean stop keeps the day's ids for the next start, unless another process holds the lock right now.
      if (db.open) salts.store();
    },
  };
  instances.set(db, visitors);
  return visitors;
}
