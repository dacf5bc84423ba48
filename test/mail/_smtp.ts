// A real SMTP server for the mail tests (smtp-server on port 0, plain SMTP with AUTH PLAIN over the loopback), whose
// received messages are parsed by mailparser. Not a test file itself.
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  envelopeTo: string[];
  parsed: ParsedMail;
  /** The message as received, headers and all. */
  raw: string;
}

export interface SmtpReceiver {
  /** SMTP_URL for Sightline, with the receiver's credentials. */
  url: string;
  received: ReceivedMail[];
  /** Resolves once `count` messages have arrived (rejects after `timeoutMs`, a bound only: never a pass condition). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** The next `n` RCPT TO answers are this SMTP refusal (e.g. 451 for a temporary one). */
  refuseNext(n: number, code: number): void;
  close(): Promise<void>;
}

export const smtpUser = 'sightline';
export const smtpPassword = 'p@ss word';

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  let refusals = { left: 0, code: 451 };
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth: (auth, _session, callback) => {
      if (auth.username === smtpUser && auth.password === smtpPassword) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo: (_address, _session, callback) => {
      if (refusals.left > 0) {
        refusals.left--;
        const error = new Error('refused by the test') as Error & { responseCode: number };
        error.responseCode = refusals.code;
        return callback(error);
      }
      callback();
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        void simpleParser(raw).then((parsed) => {
          received.push({ envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address), parsed, raw });
          for (const wake of waiters.splice(0)) wake();
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://${encodeURIComponent(smtpUser)}:${encodeURIComponent(smtpPassword)}@127.0.0.1:${port}`,
    received,
    refuseNext: (n, code) => {
      refusals = { left: n, code };
    },
    waitFor: async (count, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} mails, received ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200).unref();
        });
      }
      return received.slice(0, count);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A header's value as sent (unfolded), from the parsed message's raw header lines. */
export function headerOf(mail: ReceivedMail, name: string): string {
  const line = mail.parsed.headerLines.find((header) => header.key === name)?.line ?? '';
  return line.replace(/\r?\n[ \t]+/g, ' ').replace(/^[^:]+:\s*/, '').trim();
}
