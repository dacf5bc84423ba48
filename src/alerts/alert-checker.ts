// The alert checker's timer on the HTTP thread (every five minutes by default; the app's option shortens it, and
// tests call checkNow after moving the clock).
import { consola } from 'consola';
import type { AppContext } from '../context.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { ReadModel } from '../read-model/read-model.ts';
import { checkAlerts } from './check-alerts.ts';

export interface AlertCheckerOptions {
  /** Between checks (default five minutes). */
  intervalMs: number;
}

export interface AlertChecker {
  /** A check now (after the one running); resolves with the ids of the rules that fired. */
  checkNow(): Promise<string[]>;
  stop(): Promise<void>;
}

export function startAlertChecker(context: AppContext, readModel: ReadModel, mailer: Mailer, wakeDeliveries: () => void, options: Partial<AlertCheckerOptions> = {}): AlertChecker {
  let stopped = false;
  let running: Promise<string[]> = Promise.resolve([]);
  const run = async () => (stopped || !context.db.open ? [] : checkAlerts(context, readModel, mailer, wakeDeliveries));
  const checkNow = () => (running = running.then(run, run));
  const interval = setInterval(() => void checkNow().catch((error: unknown) => consola.error('alert check:', error)), options.intervalMs ?? 300_000);
  interval.unref();
  return {
    checkNow,
    stop: async () => {
      stopped = true;
      clearInterval(interval);
      await running.catch(() => undefined);
    },
  };
}
