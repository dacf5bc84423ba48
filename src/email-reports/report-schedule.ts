// The report schedule, on a timer of the HTTP thread driven by the app's clock (docs/email.md "Schedule" and
// "Once"): each pass looks at every subscription's most recently due period; a period not yet claimed is built from
// the read model and claimed by inserting its outbox row, whose id is the period key, in one transaction. A second
// pass, a second process or a restart finds the row and sends nothing; the outbox worker sends it, retrying. A period
// that became due while the server was down is claimed by the first pass after the start (only the latest one).
import { consola } from 'consola';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import type { Mailer } from '../mail/mailer.ts';
import { mailOutboxRowExists, queueMail } from '../mail/queries/mail-outbox-rows.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { findSite } from '../tenants/queries/find-site.ts';
import { dayMs } from '../vocabulary/periods.ts';
import { composeReportMail } from './compose-report.ts';
import type { ReportFigures } from './report-figures.ts';
import { listAllSubscriptions } from './queries/subscription-rows.ts';
import { mailableUser } from './recipients.ts';
import { duePeriodOf, periodKeyOf } from './report-periods.ts';

export interface ReportScheduleOptions {
  /** Between passes (default one minute). */
  intervalMs: number;
  /** From the start to the first pass (default 0: a report due while the server was down goes out at once). */
  firstAfterMs: number;
}

export const defaultReportSchedule: ReportScheduleOptions = { intervalMs: 60_000, firstAfterMs: 0 };

export interface ReportSchedule {
  /** A pass now (after the one running); resolves with the reports claimed. */
  runDue(): Promise<number>;
  /** No further pass starts; resolves when the one running has finished. */
  stop(): Promise<void>;
}

/** One pass: claims every due, unclaimed period; returns how many. */
export async function claimDueReports(context: AppContext, readModel: ReadModel, mailer: Mailer): Promise<number> {
  if (!mailer.configured) return 0;
  let claimed = 0;
  const figuresCache = new Map<string, Promise<ReportFigures>>();
  for (const subscription of listAllSubscriptions(context.db)) {
    const now = context.clock.now();
    const period = duePeriodOf(subscription.frequency, now);
    // Subscribed after the period became due: its first report is the next one.
    if (Date.parse(subscription.created_at) > period.dueDay * dayMs) continue;
    const id = periodKeyOf(subscription.id, period);
    if (mailOutboxRowExists(context.db, id)) continue;
    const site = findSite(context.db, subscription.site_id);
    const user = site && mailableUser(context.db, subscription.user_id, site.workspace_id);
    if (!site || !user) continue;
    const mail = await composeReportMail(context, readModel, site, period, { subscriptionId: subscription.id, test: false, figuresCache });
    if (!context.db.open) return claimed;
    const inserted = inWriteTransaction(context.db, () =>
      queueMail(context.db, { id, kind: 'report', recipient: user.email, mail, nowMs: now }),
    );
    if (inserted) claimed++;
  }
  if (claimed > 0) mailer.outbox.wake();
  return claimed;
}

/**
 * @example const schedule = startReportSchedule(context, readModel, mailer); await schedule.runDue();
 */
export function startReportSchedule(context: AppContext, readModel: ReadModel, mailer: Mailer, options: Partial<ReportScheduleOptions> = {}): ReportSchedule {
  const settings = { ...defaultReportSchedule, ...options };
  let stopped = false;
  let running: Promise<number> = Promise.resolve(0);
  const run = async () => (stopped || !context.db.open ? 0 : claimDueReports(context, readModel, mailer));
  const runDue = () => (running = running.then(run, run));
  const tick = () => void runDue().catch((error: unknown) => consola.error('e-mail report schedule:', error));
  const first = setTimeout(tick, settings.firstAfterMs);
  const interval = setInterval(tick, settings.intervalMs);
  first.unref();
  interval.unref();
  return {
    runDue,
    stop: async () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(interval);
      await running.catch(() => undefined);
    },
  };
}
