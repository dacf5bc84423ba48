// A member's own e-mail report subscriptions of a site (CONTRACT 13): list, subscribe, change the frequency,
// unsubscribe. Only a signed-in person has an inbox: the admin token and API keys are refused (403). Another
// member's subscription is the 404 of a missing one, whatever the caller's role.
import * as v from 'valibot';
import type { Caller } from '../access/caller.ts';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import { ApiError } from '../http/errors.ts';
import type { SiteRow } from '../tenants/queries/find-site.ts';
import {
  deleteSubscription,
  findSubscription,
  type Frequency,
  insertSubscription,
  listSubscriptionsOfMember,
  setSubscriptionFrequency,
  type SubscriptionRow,
} from './queries/subscription-rows.ts';

export const frequencies = ['weekly', 'monthly'] as const;
const FrequencyField = v.picklist(frequencies, `must be one of ${frequencies.join(', ')}`);
export const CreateSubscriptionBody = v.strictObject({ frequency: FrequencyField });
export const UpdateSubscriptionBody = v.strictObject({ frequency: FrequencyField });

export interface Subscription {
  id: string;
  user_id: string;
  frequency: Frequency;
  created_at: string;
}

const toSubscription = (row: SubscriptionRow): Subscription => ({ id: row.id, user_id: row.user_id, frequency: row.frequency, created_at: row.created_at });

/** The caller's account id: reports go to a person's inbox. */
export function subscriberOf(caller: Caller): string {
  if (caller.kind !== 'user') throw new ApiError(403, 'forbidden_scope', 'E-mail reports belong to a signed-in person: sign in with your account');
  return caller.userId;
}

/** The caller's subscription `id` of the site; anyone else's, or of another site, is 404. */
export function findOwnSubscription(context: AppContext, site: SiteRow, userId: string, id: string): SubscriptionRow {
  const row = findSubscription(context.db, id);
  if (!row || row.site_id !== site.id || row.user_id !== userId) throw ApiError.notFound('No such e-mail report');
  return row;
}

export function listSubscriptions(context: AppContext, site: SiteRow, userId: string): Subscription[] {
  return listSubscriptionsOfMember(context.db, site.id, userId).map(toSubscription);
}

const alreadySubscribed = () => ApiError.conflict('already_subscribed', 'You already receive this report at that frequency');

export function subscribe(context: AppContext, site: SiteRow, userId: string, frequency: Frequency): Subscription {
  const row: SubscriptionRow = { id: context.random.uuid(), site_id: site.id, user_id: userId, frequency, created_at: toIso(context.clock.now()) };
  if (!inWriteTransaction(context.db, () => insertSubscription(context.db, row))) throw alreadySubscribed();
  return toSubscription(row);
}

export function changeFrequency(context: AppContext, site: SiteRow, userId: string, id: string, frequency: Frequency): Subscription {
  return inWriteTransaction(context.db, () => {
    const row = findOwnSubscription(context, site, userId, id);
    if (row.frequency !== frequency && !setSubscriptionFrequency(context.db, id, frequency)) throw alreadySubscribed();
    return toSubscription({ ...row, frequency });
  });
}

export function unsubscribe(context: AppContext, site: SiteRow, userId: string, id: string): void {
  inWriteTransaction(context.db, () => {
    findOwnSubscription(context, site, userId, id);
    deleteSubscription(context.db, id);
  });
}
