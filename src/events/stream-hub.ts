// The open stream-v2 connections of one app: a cap per site, one subscription to the write queue's commits while
// at least one stream is open (none otherwise, so ingest pays nothing), and ending them all when the app closes.
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { type CommitWatcher, overloaded } from '../ingest/write-queue.ts';
import type { Projection } from '../projector/projection.ts';

/** Where commits are announced (the ingest write queue). */
export interface CommitSource {
  watchCommits(watcher: CommitWatcher): () => void;
}

export interface StreamSubscriber {
  /** Events may have been committed: read what is new. */
  wake(): void;
  /** The app is closing: finish the response. */
  end(): void;
}

export interface StreamHubOptions {
  maxPerSite: number;
  /** Without one (an app without ingest), open streams look for new rows every `pollMs`. */
  commits?: CommitSource;
  pollMs?: number;
  /** Streams with visit filters deliver an event once its visit is projected: they wake on its progress too. */
  projection?: Pick<Projection, 'position' | 'watchProgress'>;
}

function tooManyStreams(max: number): ApiError {
  return new ApiError(429, 'too_many_streams', `This site already has ${max} open event streams; close one or retry later`, undefined, { 'retry-after': '5' });
}

export class StreamHub {
  private readonly siteOf = new Map<StreamSubscriber, string>();
  private readonly perSite = new Map<string, number>();
  private stopWatching: (() => void) | undefined;
  private closed = false;
  private wakeScheduled = false;

  constructor(private readonly options: StreamHubOptions) {}

  /**
   * Counts a new stream of the site, or refuses it: 429 too_many_streams at the cap, 503 once the app is closing.
   * @example const leave = hub.join('blog', { wake, end }); … leave();
   */
  join(siteId: string, subscriber: StreamSubscriber): () => void {
    if (this.closed) throw overloaded('The server is shutting down');
    const count = this.perSite.get(siteId) ?? 0;
    if (count >= this.options.maxPerSite) throw tooManyStreams(this.options.maxPerSite);
    this.perSite.set(siteId, count + 1);
    this.siteOf.set(subscriber, siteId);
    if (this.siteOf.size === 1) this.watch();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.siteOf.delete(subscriber);
      const remaining = (this.perSite.get(siteId) ?? 1) - 1;
      if (remaining > 0) this.perSite.set(siteId, remaining);
      else this.perSite.delete(siteId);
      if (this.siteOf.size === 0) this.unwatch();
    };
  }

  /** Ends every open stream and refuses new ones. */
  closeAll(): void {
    this.closed = true;
    for (const subscriber of [...this.siteOf.keys()]) subscriber.end();
    this.unwatch();
  }

  private wakeAll(): void {
    for (const subscriber of [...this.siteOf.keys()]) subscriber.wake();
  }

  /**
   * Called on the write queue's commit path: it only sets a flag. The streams read on the next turn of the event
   * loop, once for any number of commits in between, and off the path that schedules the next commit.
   */
  private wakeSoon(): void {
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      this.wakeAll();
    });
  }

  /** How far the projector has got (every seq when there is no projector: nothing derived to wait for). */
  projectedSeq(): number {
    return this.options.projection?.position() ?? Number.MAX_SAFE_INTEGER;
  }

  private watch(): void {
    const stopProgress = this.options.projection?.watchProgress(() => this.wakeSoon());
    if (this.options.commits) {
      const stopCommits = this.options.commits.watchCommits({ committed: () => this.wakeSoon(), closed: () => this.closeAll() });
      this.stopWatching = () => {
        stopCommits();
        stopProgress?.();
      };
      return;
    }
    const timer = setInterval(() => this.wakeAll(), this.options.pollMs ?? 1000);
    timer.unref();
    this.stopWatching = () => {
      clearInterval(timer);
      stopProgress?.();
    };
  }

  private unwatch(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
  }
}

const hubs = new WeakMap<AppContext, StreamHub>();

/** The app's hub, created once by mountEvents. */
export function createStreamHub(context: AppContext, options: StreamHubOptions): StreamHub {
  const hub = new StreamHub(options);
  hubs.set(context, hub);
  return hub;
}

/**
 * Ends the app's open event streams. A server stopping calls it before waiting for its connections to finish:
 * an event stream never finishes by itself. (app.close() ends them too, when the ingest queue has drained.)
 * @example closeEventStreams(app.context);
 */
export function closeEventStreams(context: AppContext): void {
  hubs.get(context)?.closeAll();
}
