// The annotations a report's range shows (summary-v2's meta.annotations): the site's and the reader's own.
import type { Db } from '../db/open.ts';
import type { AnnotationAnswer } from './answers.ts';
import { toAnnotationAnswer } from './annotation-access.ts';
import { listVisibleAnnotations } from './queries/annotation-rows.ts';

export function annotationsInRange(db: Db, siteId: string, ownerId: string | null, from: string, to: string): AnnotationAnswer[] {
  return listVisibleAnnotations(db, siteId, ownerId, from, to).map(toAnnotationAnswer);
}
