// The open stream-v2 connections of one app: caps per site, per credential, per workspace and on the whole server, one subscription
// to the write queue's commits while at least one stream is open (none otherwise, so ingest pays nothing), and ending
// them all when the app closes.
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { type CommitWatcher, overloaded } from '../ingest/write-queue.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';
import { defineStreamMetrics, type StreamCap, type StreamMetrics } from './stream-metrics.ts';

/** Where commits are announced (the ingest write queue). */
export interface CommitSource {
  watchCommits(watcher: CommitWatcher): () => void;
}

/** Where the projector's progress is announced (its handle): once per batch it committed. */
export interface ProgressSource {
  watchProgress(listener: () => void): () => void;
}

export interface StreamSubscriber {
  /** Events may have been committed: read what is new. */
  wake(): void;
  /** The app is closing: finish the response. */
  end(): void;
  /** Bytes the server holds for this stream now (for /metrics). */
  bufferedBytes(): number;
}

/** Whose stream it is: what the caps count. */
export interface StreamOwner {
  siteId: string;
  /** The site's workspace: one tenant, however many keys and sites it has, takes at most its share of the server. */
  workspaceId: string;
  /** One identity per credential: the admin token's, or an API key's (by its id). */
  credential: string;
}

export interface StreamLimits {
  perSite: number;
  perCredential: number;
  perWorkspace: number;
  total: number;
}

export interface StreamHubOptions {
  limits: StreamLimits;
  /** Without one (an app without ingest), open streams look for new rows every `pollMs`. */
  commits?: CommitSource;
  pollMs?: number;
  /** Streams with visit filters deliver an event once its visit is projected: they wake on the projector's progress too. */
  progress?: ProgressSource;
  /** Where the streams' figures are published (/metrics). */
  metrics?: MetricsRegistry;
}

const refusalMessages: Record<StreamCap, (max: number) => string> = {
  site: (max) => `This site already has ${max} open event streams; close one or retry later`,
  credential: (max) => `This credential (API key or admin token) already has ${max} open event streams; close one or retry later`,
  workspace: (max) => `This workspace already has ${max} open event streams; close one or retry later`,
  total: (max) => `The server already has ${max} open event streams; retry later`,
};

function tooManyStreams(cap: StreamCap, max: number): ApiError {
  return new ApiError(429, 'too_many_streams', refusalMessages[cap](max), undefined, { 'retry-after': '5' });
}

function addTo(counts: Map<string, number>, key: string, amount: 1 | -1): void {
  const count = (counts.get(key) ?? 0) + amount;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}

export class StreamHub {
  private readonly ownerOf = new Map<StreamSubscriber, StreamOwner>();
  private readonly perSite = new Map<string, number>();
  private readonly perCredential = new Map<string, number>();
  private readonly perWorkspace = new Map<string, number>();
  private stopWatching: (() => void) | undefined;
  private closed = false;
  private wakeScheduled = false;
  readonly metrics: StreamMetrics;

  constructor(private readonly options: StreamHubOptions) {
    this.metrics = defineStreamMetrics(options.metrics, {
      count: () => this.ownerOf.size,
      bufferedBytes: () => {
        let total = 0;
        for (const subscriber of this.ownerOf.keys()) total += subscriber.bufferedBytes();
        return total;
      },
    });
  }

  /**
   * Counts a new stream, or refuses it: 429 too_many_streams when its site, its credential, its workspace or the
   * server is at its cap, 503 once the app is closing.
   * @example const leave = hub.join({ siteId: 'blog', workspaceId: 'w1', credential: 'admin-token' }, { wake, end, bufferedBytes }); … leave();
   */
  join(owner: StreamOwner, subscriber: StreamSubscriber): () => void {
    if (this.closed) throw overloaded('The server is shutting down');
    const { limits } = this.options;
    const full: [StreamCap, number, number][] = [
      ['site', this.perSite.get(owner.siteId) ?? 0, limits.perSite],
      ['credential', this.perCredential.get(owner.credential) ?? 0, limits.perCredential],
      ['workspace', this.perWorkspace.get(owner.workspaceId) ?? 0, limits.perWorkspace],
      ['total', this.ownerOf.size, limits.total],
    ];
    for (const [cap, open, max] of full) {
      if (open < max) continue;
      this.metrics.refused(cap);
      throw tooManyStreams(cap, max);
    }
    addTo(this.perSite, owner.siteId, 1);
    addTo(this.perCredential, owner.credential, 1);
    addTo(this.perWorkspace, owner.workspaceId, 1);
    this.ownerOf.set(subscriber, owner);
    if (this.ownerOf.size === 1) this.watch();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.ownerOf.delete(subscriber);
      addTo(this.perSite, owner.siteId, -1);
      addTo(this.perCredential, owner.credential, -1);
      addTo(this.perWorkspace, owner.workspaceId, -1);
      if (this.ownerOf.size === 0) this.unwatch();
    };
  }

  /** Ends every open stream and refuses new ones. */
  closeAll(): void {
    this.closed = true;
    for (const subscriber of [...this.ownerOf.keys()]) subscriber.end();
    this.unwatch();
  }

  private wakeAll(): void {
    for (const subscriber of [...this.ownerOf.keys()]) subscriber.wake();
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

  private watch(): void {
    const stopProgress = this.options.progress?.watchProgress(() => this.wakeSoon());
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
