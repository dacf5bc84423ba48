// What the HTTP thread and the writer thread say to each other (committer.ts, writer-thread.ts), and the page cache
// both kinds of committer give the event log's connection.
import type { Synchronous } from '../db/open.ts';
import type { GroupOutcome, WriteBatch } from './store-group.ts';

/** The writer's page cache: a commit touches the rightmost pages and one leaf per random index entry. */
export const writerCacheMiB = 4;

export interface WriterThreadData {
  databasePath: string;
  synchronous?: Synchronous;
  nativeBinding?: string;
}

export type WriterRequest = { id: number; batches: WriteBatch[]; receivedAt: number };
export type WriterReply =
  | ({ id: number; ok: true; commitMs: number } & GroupOutcome)
  | { id: number; ok: false; message: string };
