// What the app hands the domains that mail: the outbox worker, a direct send for mails that must not be stored
// (an invitation's link carries its token), and whether SMTP is configured at all (409 smtp_not_configured).
import { consola } from 'consola';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { createMailTransport, type MailTransportLimits } from './mail-transport.ts';
import { type MailWorker, startMailWorker } from './mail-worker.ts';

export interface DirectMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  configured: boolean;
  outbox: MailWorker;
  /** Sends now, outside the outbox (nothing stored, no retry); resolves false when the server refused or failed. */
  sendDirect(mail: DirectMail): Promise<boolean>;
}

export interface MailerOptions {
  transportLimits?: Partial<MailTransportLimits>;
  /** How often the outbox is looked at (default 30 s). */
  pollMs?: number;
}

/**
 * @example const mailer = startMailer(context); mailer.outbox.wake();
 */
export function startMailer(context: AppContext, options: MailerOptions = {}): Mailer {
  const smtp = context.config.smtp;
  const transport = smtp ? createMailTransport(smtp.url, options.transportLimits) : undefined;
  return {
    configured: transport !== undefined,
    outbox: startMailWorker({ context, transport, pollMs: options.pollMs }),
    sendDirect: async (mail) => {
      if (!transport || !smtp) return false;
      try {
        await transport.send({ from: smtp.from, ...mail });
        return true;
      } catch (error) {
        consola.warn(`mail to a recipient failed: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      }
    },
  };
}

/** Settings that only mean something with mail refuse to exist without it (CONTRACT 13). */
export function requireSmtp(mailer: Pick<Mailer, 'configured'>): void {
  if (!mailer.configured) throw ApiError.conflict('smtp_not_configured', 'Mail is not configured on this server: the operator sets SMTP_URL and SMTP_FROM');
}
