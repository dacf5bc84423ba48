// A conversion's journey: the person who converted (anon_ids merged through user_id on the site) and the visits of
// that person that started in the 30 days before the conversion, read through the projector's queries.
import type { Db } from '../../db/open.ts';
import type { PurchaseEventRow } from './queries/purchase-events.ts';
import { anonIdsOfUser } from '../../projector/queries/identity-rows.ts';
import { findUserOfAnon } from './queries/user-of-anon.ts';
import { listVisitsOfAnonIds, type TouchpointVisitRow } from './queries/visits-of-anon-ids.ts';

/** How far back a visit counts as a touchpoint. */
export const lookbackMs = 30 * 24 * 60 * 60 * 1000;

export interface Journey {
  /** `user:<user_id>` when the person is known by a user_id, else `anon:<anon_id>`. */
  person: string;
  /** Chronological: visit start, then anon_id. */
  touchpoints: TouchpointVisitRow[];
}

/**
 * The person is the conversion's user_id, else the user its anon_id is bound to on the site (the binding seen
 * last), else the anon_id alone. Touchpoints start in [ts − 30 days, ts): a visit that begins with the conversion
 * itself (a server-side purchase with no earlier visit) is not a touchpoint of it.
 * @example journeyOf(db, purchase) // { person: 'user:u-1', touchpoints: [{ start_ts, source: 'google', … }] }
 */
export function journeyOf(db: Db, conversion: PurchaseEventRow): Journey {
  const userId = conversion.user_id ?? findUserOfAnon(db, conversion.site_id, conversion.anon_id);
  const anonIds = new Set([conversion.anon_id]);
  if (userId !== undefined) for (const anonId of anonIdsOfUser(db, conversion.site_id, userId)) anonIds.add(anonId);
  const touchpoints = listVisitsOfAnonIds(db, {
    site_id: conversion.site_id,
    anon_ids: JSON.stringify([...anonIds]),
    start_from: conversion.ts - lookbackMs,
    start_before: conversion.ts,
  });
  return { person: userId !== undefined ? `user:${userId}` : `anon:${conversion.anon_id}`, touchpoints };
}
