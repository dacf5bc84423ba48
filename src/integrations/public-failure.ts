// What a workspace admin is shown of a delivery that got no answer. The SSRF guard's and the connection's own text
// ("intranet.corp resolves to 10.0.0.5", "getaddrinfo ENOTFOUND db.internal") would let an admin key map which
// internal host names exist through test deliveries: such failures read the same, whatever the cause, and the detail
// goes to the server's log only (delivery-worker.ts).
import type { AttemptOutcome } from './queries/attempt-rows.ts';

/** The history's excerpt of a refused or unreachable target: no address, no host, no DNS error code. */
export const unreachableExcerpt = 'the target was refused or could not be reached';

/**
 * The outcome as the history and the metrics show it: a refusal by the SSRF guard reads as a connection error, so a
 * name that resolves privately cannot be told from one that does not resolve.
 * @example publicOutcome('address_refused') // 'network_error'
 */
export function publicOutcome(outcome: AttemptOutcome): AttemptOutcome {
  return outcome === 'address_refused' ? 'network_error' : outcome;
}

/**
 * The excerpt as the history shows it: a target's own answer as it came, the generic text for a refused or
 * unreachable one (also for attempts recorded before this rule, whose excerpt held the error).
 * @example publicExcerpt('network_error', 'getaddrinfo ENOTFOUND db.internal') // unreachableExcerpt
 */
export function publicExcerpt(outcome: AttemptOutcome, excerpt: string | null): string | null {
  return publicOutcome(outcome) === 'network_error' ? unreachableExcerpt : excerpt;
}
