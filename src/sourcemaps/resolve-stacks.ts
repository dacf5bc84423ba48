// Resolves the stack of `error` events through the uploaded map of their release, when list-v2 shows them: frames
// of `props.stack` in the site's maps of `props.release`, looked up by the script's base name. Parsed maps stay in a
// small LRU (per database handle) keyed by the map's digest, so a new upload of the same name is never served stale.
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { FlattenMap, originalPositionFor, type TraceMap } from '@jridgewell/trace-mapping';
import type { Db } from '../db/open.ts';
import type { ResolvedFrame } from './answers.ts';
import { findSourcemapDigest, readSourcemapContent, type SourcemapKey } from './queries/sourcemap-rows.ts';
import { parseStackFrames } from './stack-frames.ts';
import { releasePattern } from './upload-body.ts';

const gunzipAsync = promisify(gunzip);

/**
 * What a parsed map costs in memory, estimated: trace-mapping decodes the mappings whole on the first lookup (about
 * 18 bytes per character of them, measured), plus the map's own text while it is parsed.
 * @example estimatedCostOf({ size: 1_000_000, mappings_length: 400_000 }) // → 9_000_000
 */
export function estimatedCostOf(stored: { size: number; mappings_length: number }): number {
  return stored.mappings_length * 20 + stored.size;
}

/** The LRU's bounds: at most this many parsed maps, of at most this estimated cost in all. */
export const cachedMapLimit = 16;
export const cachedCostLimit = 128 * 1024 * 1024;
/**
 * A page of events loads at most this many maps that are not cached, of at most this estimated cost together (the
 * largest map allowed costs about 105 MiB); frames past either stay unresolved.
 */
export const mapLoadsPerRequest = 8;
export const loadCostPerRequest = 128 * 1024 * 1024;

interface CachedMap {
  map: TraceMap;
  cost: number;
}

interface MapCache {
  /** Insertion order is recency order: a hit moves its entry to the end. */
  entries: Map<string, CachedMap>;
  cost: number;
}

const caches = new WeakMap<Db, MapCache>();

function cacheOf(db: Db): MapCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = { entries: new Map(), cost: 0 };
    caches.set(db, cache);
  }
  return cache;
}

/** How many parsed maps the handle's cache holds, and their estimated cost (for tests and diagnostics). */
export function mapCacheStats(db: Db): { maps: number; cost: number } {
  const cache = cacheOf(db);
  return { maps: cache.entries.size, cost: cache.cost };
}

function remember(cache: MapCache, sha256: string, entry: CachedMap): void {
  // Two pages may have loaded the same map at once: the second replaces the first.
  const previous = cache.entries.get(sha256);
  if (previous) {
    cache.entries.delete(sha256);
    cache.cost -= previous.cost;
  }
  cache.entries.set(sha256, entry);
  cache.cost += entry.cost;
  for (const [oldest, evicted] of cache.entries) {
    if (cache.entries.size <= cachedMapLimit && cache.cost <= cachedCostLimit) break;
    cache.entries.delete(oldest);
    cache.cost -= evicted.cost;
  }
}

/** An event of the page: its site, its type and its props; `resolved_stack` is set on error events. */
export interface StackCarrier {
  siteId: string;
  item: { type: string; props: Record<string, unknown> | null; resolved_stack?: ResolvedFrame[] | null };
}

/** The maps one page of events needs, loaded once each. */
class PageMaps {
  private readonly found = new Map<string, Promise<TraceMap | undefined>>();
  private loads = 0;
  private loadedCost = 0;

  constructor(private readonly db: Db) {}

  get(key: SourcemapKey): Promise<TraceMap | undefined> {
    const name = `${key.site_id}\u0000${key.release}\u0000${key.file}`;
    let map = this.found.get(name);
    if (!map) {
      map = this.load(key);
      this.found.set(name, map);
    }
    return map;
  }

  private async load(key: SourcemapKey): Promise<TraceMap | undefined> {
    const digest = findSourcemapDigest(this.db, key);
    if (!digest) return undefined;
    const cache = cacheOf(this.db);
    const cached = cache.entries.get(digest.sha256);
    if (cached) {
      cache.entries.delete(digest.sha256);
      cache.entries.set(digest.sha256, cached);
      return cached.map;
    }
    const cost = estimatedCostOf(digest);
    if (this.loads >= mapLoadsPerRequest || this.loadedCost + cost > loadCostPerRequest) return undefined;
    this.loads++;
    this.loadedCost += cost;
    const compressed = readSourcemapContent(this.db, key, digest.sha256);
    if (!compressed) return undefined;
    let map: TraceMap;
    try {
      const bytes = await gunzipAsync(compressed);
      // Checked when uploaded: the stored bytes parse to a map trace-mapping reads.
      map = new FlattenMap(withoutSourcesContent(JSON.parse(bytes.toString('utf8'))) as ConstructorParameters<typeof FlattenMap>[0]);
    } catch {
      // A stored map that no longer reads (a damaged row) leaves its frames unresolved; the page is still answered.
      return undefined;
    }
    remember(cache, digest.sha256, { map, cost });
    return map;
  }
}

/** The sources' text is often most of a map and resolving never reads it: the cache does not keep it. */
function withoutSourcesContent(map: Record<string, unknown>): Record<string, unknown> {
  delete map.sourcesContent;
  if (Array.isArray(map.sections)) {
    for (const section of map.sections as { map?: Record<string, unknown> }[]) if (section?.map) withoutSourcesContent(section.map);
  }
  return map;
}

async function resolveFrames(maps: PageMaps, siteId: string, release: string | undefined, stack: string): Promise<ResolvedFrame[]> {
  const resolved: ResolvedFrame[] = [];
  for (const frame of parseStackFrames(stack)) {
    const map = release !== undefined && frame.file.endsWith('.js') ? await maps.get({ site_id: siteId, release, file: frame.file }) : undefined;
    // Stack columns are 1-based, a map's are 0-based.
    const found = map && frame.column >= 1 ? originalPositionFor(map, { line: frame.line, column: frame.column - 1 }) : undefined;
    const original = found && found.source !== null ? { source: found.source, line: found.line, column: found.column + 1, name: found.name } : null;
    resolved.push({ ...frame, original });
  }
  return resolved;
}

/**
 * Sets `resolved_stack` on every error event of the page: its frames, each with its original position when the
 * site has a map of the event's release for that script, or null when the event has no `props.stack` text.
 * @example await resolveErrorStacks(db, page.map((item) => ({ siteId: 'blog', item })));
 */
export async function resolveErrorStacks(db: Db, events: readonly StackCarrier[]): Promise<void> {
  const maps = new PageMaps(db);
  for (const { siteId, item } of events) {
    if (item.type !== 'error') continue;
    const stack = item.props?.stack;
    const release = item.props?.release;
    item.resolved_stack =
      typeof stack === 'string' ? await resolveFrames(maps, siteId, typeof release === 'string' && releasePattern.test(release) ? release : undefined, stack) : null;
  }
}
