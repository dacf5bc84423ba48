// Lookups that every group commit repeats (a dimension value's id, a visitor's number) remembered per connection,
// trusted only inside a group commit and only while no other connection has committed since they were read.
// Rows are only ever added to the cached tables by the writer; deleting them (site deletion, GDPR, a rebuild)
// happens on another connection, which `PRAGMA data_version` reveals, or on this one, which calls dropCommitCaches.
import type { Db } from './open.ts';

/** What the registry needs of a cache: what the open transaction added stays tentative until it commits. */
interface CommitScoped {
  keep(): void;
  dropTentative(): void;
  clear(): void;
}

/** Key → value (an id, a number). */
export class CommitCache<V> implements CommitScoped {
  private committed = new Map<string, V>();
  private tentative = new Map<string, V>();

  constructor(private readonly maxEntries: number) {}

  get(key: string): V | undefined {
    return this.tentative.get(key) ?? this.committed.get(key);
  }

  /** The cached value, or `read()`'s, remembered when found. */
  lookup(key: string, read: () => V | undefined): V | undefined {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const found = read();
    if (found !== undefined) this.tentative.set(key, found);
    return found;
  }

  remember(key: string, value: V): void {
    this.tentative.set(key, value);
  }

  /** The transaction committed: what it read or wrote is now true for the next ones. */
  keep(): void {
    if (this.committed.size + this.tentative.size > this.maxEntries) this.committed.clear();
    for (const [key, value] of this.tentative) this.committed.set(key, value);
    this.tentative.clear();
  }

  /** A savepoint or the transaction rolled back: what it wrote may be gone. */
  dropTentative(): void {
    this.tentative.clear();
  }

  clear(): void {
    this.committed.clear();
    this.tentative.clear();
  }
}

/** Sets of small numbers by key (the visitors known to be in a day's set), bounded by their total size. */
export class CommitSetCache implements CommitScoped {
  private committed = new Map<string, Set<number>>();
  private size = 0;
  private tentative: [string, number][] = [];

  constructor(private readonly maxMembers: number) {}

  has(key: string, member: number): boolean {
    return this.committed.get(key)?.has(member) ?? false;
  }

  add(key: string, member: number): void {
    this.tentative.push([key, member]);
  }

  /** Takes effect at once, committed or not: forgetting a true member only costs a lookup later. */
  delete(key: string, member: number): void {
    if (this.committed.get(key)?.delete(member)) this.size--;
    this.tentative = this.tentative.filter(([tentativeKey, tentativeMember]) => tentativeKey !== key || tentativeMember !== member);
  }

  keep(): void {
    if (this.size + this.tentative.length > this.maxMembers) this.clear();
    for (const [key, member] of this.tentative) {
      let members = this.committed.get(key);
      if (!members) this.committed.set(key, (members = new Set()));
      if (!members.has(member)) {
        members.add(member);
        this.size++;
      }
    }
    this.tentative = [];
  }

  dropTentative(): void {
    this.tentative = [];
  }

  clear(): void {
    this.committed.clear();
    this.size = 0;
    this.tentative = [];
  }
}

interface ConnectionCaches {
  open: boolean;
  dataVersion: number;
  caches: Map<string, CommitScoped>;
}

const connections = new WeakMap<Db, ConnectionCaches>();

function cachesOf(db: Db): ConnectionCaches {
  let found = connections.get(db);
  if (!found) connections.set(db, (found = { open: false, dataVersion: -1, caches: new Map() }));
  return found;
}

/**
 * The named cache while a group commit is open on `db` (made by `create` the first time); undefined otherwise
 * (read from the database then).
 * @example const ids = openCommitCache(db, 'value ids', () => new CommitCache<number>(100_000)); const id = ids?.get(key);
 */
export function openCommitCache<C extends CommitScoped>(db: Db, name: string, create: () => C): C | undefined {
  const connection = connections.get(db);
  if (!connection?.open) return undefined;
  let cache = connection.caches.get(name);
  if (!cache) connection.caches.set(name, (cache = create()));
  return cache as C;
}

/** Call first inside the group commit's write transaction: nobody else can commit until it ends. */
export function beginCommitCaches(db: Db): void {
  const connection = cachesOf(db);
  const dataVersion = db.pragma('data_version', { simple: true }) as number;
  if (dataVersion !== connection.dataVersion) for (const cache of connection.caches.values()) cache.clear();
  connection.dataVersion = dataVersion;
  connection.open = true;
}

/** After the group commit: `committed` says whether its transaction committed. */
export function endCommitCaches(db: Db, committed: boolean): void {
  const connection = cachesOf(db);
  connection.open = false;
  for (const cache of connection.caches.values()) {
    if (committed) cache.keep();
    else cache.dropTentative();
  }
}

/** A savepoint inside the group commit rolled back. */
export function dropTentativeCommitCaches(db: Db): void {
  for (const cache of cachesOf(db).caches.values()) cache.dropTentative();
}

/** This connection deleted rows some cache may hold. */
export function dropCommitCaches(db: Db): void {
  for (const cache of connections.get(db)?.caches.values() ?? []) cache.clear();
}
