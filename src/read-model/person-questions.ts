// The person questions (the per-user timeline): a user's events on a site across every device (anon_id) ever bound
// to them, bots and internal traffic included. Bindings are what the projector derives (identities) plus the
// events it has not reached yet, so a timeline sees a binding and an event as soon as it is acknowledged.
import type { LogPosition } from './questions.ts';

/** One event of a timeline: never props or the user agent, which may hold personal data. */
export interface TimelineEvent {
  /** Where it is in the log (ingest order): orders events of one millisecond, newest ingest first. */
  position: LogPosition;
  id: string;
  type: string;
  /** The event's time, epoch ms. */
  tsMs: number;
  anonId: string;
  country: string | null;
  city: string | null;
  browser: string | null;
  os: string | null;
  deviceType: 'desktop' | 'mobile' | 'tablet' | 'other' | null;
  /** The JSON text received, as stored: url and referrer are read from it (src/event-store/wire-fields.ts). */
  raw: string;
}

export interface TimelineQuestion {
  siteId: string;
  userId: string;
  /** Only events strictly before this time (epoch ms); undefined for all. */
  beforeMs: number | undefined;
  /** A page holds at most this many events, unless one millisecond alone holds more (see TimelinePage). */
  limit: number;
}

/**
 * Not an Answer: a timeline waits for nothing and counts nothing; it sees every acknowledged event.
 * `unknownUser` when no stored event ever named the user on the site.
 */
export type TimelinePage =
  | { unknownUser: true }
  | {
      unknownUser: false;
      /**
       * Newest first (time, then position). At most limit events ending on a millisecond boundary, so paging by
       * time loses nothing; when the newest millisecond alone holds more than limit, that whole millisecond.
       */
      events: TimelineEvent[];
      /** The time (epoch ms) to ask before for the next page, or null when no older event remains. */
      nextBeforeMs: number | null;
    };

export interface PersonQuestions {
  /**
   * One page of a user's timeline on a site, in one snapshot.
   * @example const page = await readModel.timeline({ siteId: 'blog', userId: 'user-42', beforeMs: undefined, limit: 50 });
   */
  timeline(question: TimelineQuestion): Promise<TimelinePage>;
}
