// The one SMTP transport of a process (nodemailer), from SMTP_URL: pooled with a bounded number of connections and
// bounded waits, so a slow or dead mail server holds neither sockets nor the outbox worker for long. nodemailer is
// loaded on the first send: every CLI command and a server without mail start without it (it takes ~100 ms to load).
import type { Transporter } from 'nodemailer';

/** A mail as handed to the transport: both parts, and extra headers such as List-Unsubscribe. */
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html?: string | undefined;
  headers?: Record<string, string>;
}

export interface MailTransport {
  /** Resolves once the SMTP server accepted the mail for the recipient; rejects with its refusal otherwise. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** Bounds of the transport (tests shorten them). */
export interface MailTransportLimits {
  /** Open SMTP connections at most (default 2). */
  maxConnections: number;
  /** Connecting, the greeting, and an idle socket, each at most (default 10 s, 10 s, 30 s). */
  connectionTimeoutMs: number;
  greetingTimeoutMs: number;
  socketTimeoutMs: number;
}

export const defaultMailTransportLimits: MailTransportLimits = { maxConnections: 2, connectionTimeoutMs: 10_000, greetingTimeoutMs: 10_000, socketTimeoutMs: 30_000 };

/**
 * smtps:// is TLS from the first byte (port 465 by default); smtp:// upgrades with STARTTLS when the server offers it
 * (port 587 by default). Credentials come percent-encoded in the URL.
 * @example const transport = createMailTransport('smtps://user:secret@mail.example.com');
 */
export function createMailTransport(smtpUrl: string, limits: Partial<MailTransportLimits> = {}): MailTransport {
  const bounds = { ...defaultMailTransportLimits, ...limits };
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  let transporter: Promise<Transporter> | undefined;
  const transporterOf = () =>
    (transporter ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port ? Number(url.port) : secure ? 465 : 587,
        secure,
        auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
        pool: true,
        maxConnections: bounds.maxConnections,
        connectionTimeout: bounds.connectionTimeoutMs,
        greetingTimeout: bounds.greetingTimeoutMs,
        socketTimeout: bounds.socketTimeoutMs,
      }),
    ));
  return {
    send: async (mail) => {
      const info = await (await transporterOf()).sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, headers: mail.headers });
      // nodemailer resolves even when the server refused some recipients: one recipient refused is a failure.
      if ((info.rejected?.length ?? 0) > 0) throw new Error(`the SMTP server refused the recipient: ${info.response}`);
    },
    close: () => void transporter?.then((opened) => opened.close()),
  };
}
