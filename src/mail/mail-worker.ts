// The mail outbox's worker, on the HTTP thread: a timer (and a wake after each new row) finds the due mails and
// sends them one at a time through the transport, recording each attempt. Accepted by the SMTP server: sent. A
// permanent refusal (5xx): failed at once. Anything else (4xx, a refused or timed-out connection): pending again
// after the next wait of the schedule below, until the last attempt fails it. A crash between the server's accept
// and the commit of "sent" sends that mail again after the restart (docs/email.md, "Once").
import { consola } from 'consola';
import { toIso } from '../clock.ts';
import type { AppContext } from '../context.ts';
import { inWriteTransaction } from '../db/statements.ts';
import type { MailTransport } from './mail-transport.ts';
import { countPendingMail, findMailOutboxRow, listDueMail, type MailOutboxRow, settleMailOutboxRow } from './queries/mail-outbox-rows.ts';

/** The wait after attempt n (index n-1): 1 min, 5 min, 15 min, 1 h, 3 h, 6 h; then the mail is failed. */
export const mailRetryDelaysMs = [60, 300, 900, 3_600, 10_800, 21_600].map((seconds) => seconds * 1000);
export const maxMailAttempts = mailRetryDelaysMs.length + 1;

export interface MailWorker {
  /** New outbox rows were committed: look now. */
  wake(): void;
  /** Sends everything due at the clock's now, one mail after another; resolves with the attempts made. */
  sendDue(): Promise<number>;
  /** One attempt of this mail now, whatever its schedule ("send a test now"); resolves with its new row. */
  sendNow(id: string): Promise<MailOutboxRow | undefined>;
  pending(): number;
  close(): Promise<void>;
}

export interface MailWorkerOptions {
  context: AppContext;
  /** Undefined without SMTP_URL: nothing is ever queued then, and the worker does nothing. */
  transport: MailTransport | undefined;
  /** How often the timer looks for due mail (default 30 s). */
  pollMs?: number;
}

/**
 * @example const worker = startMailWorker({ context, transport }); insert rows…; worker.wake();
 */
export function startMailWorker(options: MailWorkerOptions): MailWorker {
  const { context, transport } = options;
  let stopped = false;
  let round: Promise<number> | undefined;
  // One attempt at a time: a mail sent by sendNow is never also in the round (the round re-reads each row).
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  const attempt = (id: string): Promise<MailOutboxRow | undefined> =>
    serially(async () => {
      const row = context.db.open ? findMailOutboxRow(context.db, id) : undefined;
      if (!row || row.status !== 'pending' || !transport || stopped) return row;
      await attemptMail(context, transport, row, () => stopped);
      return context.db.open ? findMailOutboxRow(context.db, id) : undefined;
    });

  const sendDue = (): Promise<number> => {
    round ??= (async () => {
      let made = 0;
      const tried = new Set<string>();
      for (;;) {
        if (stopped || !context.db.open || !transport) return made;
        const due = listDueMail(context.db, context.clock.now(), tried.size + 10).filter((row) => !tried.has(row.id));
        if (due.length === 0) return made;
        for (const row of due) {
          tried.add(row.id);
          made++;
          await attempt(row.id);
        }
      }
    })().finally(() => {
      round = undefined;
    });
    return round;
  };

  const wake = () => {
    if (!stopped && transport) void sendDue().catch((error: unknown) => consola.error('mail outbox:', error));
  };
  const ticker = setInterval(wake, options.pollMs ?? 30_000);
  ticker.unref();

  return {
    wake,
    sendDue,
    sendNow: attempt,
    pending: () => (context.db.open ? countPendingMail(context.db) : 0),
    close: async () => {
      stopped = true;
      clearInterval(ticker);
      // A send in flight finishes (bounded by the transport's timeouts) but records nothing once stopped.
      await queue;
      await round;
      transport?.close();
    },
  };
}

async function attemptMail(context: AppContext, transport: MailTransport, row: MailOutboxRow, stopped: () => boolean): Promise<void> {
  let failure: { permanent: boolean; message: string } | undefined;
  try {
    await transport.send({
      from: context.config.smtp!.from,
      to: row.recipient,
      subject: row.subject,
      text: row.text_body,
      html: row.html_body ?? undefined,
      headers: JSON.parse(row.headers) as Record<string, string>,
    });
  } catch (error) {
    const code = (error as { responseCode?: unknown }).responseCode;
    failure = { permanent: typeof code === 'number' && code >= 500 && code < 600, message: error instanceof Error ? error.message : String(error) };
    consola.warn(`mail ${row.id}: ${failure.message}`);
  }
  // Stopped while sending: the mail stays pending and goes out after the next start.
  if (stopped() || !context.db.open) return;
  const now = context.clock.now();
  const attempts = row.attempts + 1;
  inWriteTransaction(context.db, () => {
    if (!failure) settleMailOutboxRow(context.db, row.id, { status: 'sent', nextAttemptAt: row.next_attempt_at, sentAt: toIso(now), lastError: null });
    else if (failure.permanent || attempts >= maxMailAttempts) settleMailOutboxRow(context.db, row.id, { status: 'failed', nextAttemptAt: row.next_attempt_at, sentAt: null, lastError: failure.message.slice(0, 500) });
    else settleMailOutboxRow(context.db, row.id, { status: 'pending', nextAttemptAt: now + mailRetryDelaysMs[attempts - 1]!, sentAt: null, lastError: failure.message.slice(0, 500) });
  });
}
