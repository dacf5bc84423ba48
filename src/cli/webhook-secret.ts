// `sightline webhook-secret set --site S --adapter stripe`: sets (or rotates) the signing secret inbound webhooks of
// the site are verified with. The secret is read from stdin (kept out of shell history and `ps`), or --secret.
import { defineCommand } from 'citty';
import { ApiError } from '../http/errors.ts';
import { parseBody } from '../http/validate.ts';
import { SetWebhookSecretBody, setWebhookSecret, webhookAdapters } from '../webhooks/webhook-secrets.ts';
import { commonArgs, output, runCommandSafely, systemActor, withContext } from './common.ts';

/** More than any secret the adapters take: a longer input is refused before it is all read. */
const maxStdinBytes = 4096;

async function readSecretFromStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Paste the secret, then press Enter and Ctrl-D:\n');
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxStdinBytes) throw ApiError.invalidPayload([{ path: '/secret', message: `must be at most ${maxStdinBytes} bytes` }]);
    chunks.push(chunk);
  }
  // One trailing line break (echo, a file) is not part of the secret.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

const set = defineCommand({
  meta: { name: 'set', description: 'Set or rotate the webhook signing secret of a site (read from stdin; the previous one stays valid for 1 hour)' },
  args: {
    ...commonArgs,
    site: { type: 'string', description: 'Site id', required: true },
    adapter: { type: 'string', description: `Webhook adapter: ${webhookAdapters.join(', ')}`, required: true },
    secret: { type: 'string', description: 'The secret itself (prefer stdin: a flag shows in shell history and ps)' },
  },
  run: ({ args }) =>
    runCommandSafely(args, async () => {
      const secret = args.secret ?? (await readSecretFromStdin());
      const input = parseBody(SetWebhookSecretBody, { adapter: args.adapter, secret });
      await withContext(args, (context) => {
        const result = setWebhookSecret(context, systemActor, args.site, input);
        output(args, result, () =>
          result.rotated
            ? `Rotated the ${result.adapter} webhook secret of site ${result.site_id}; the previous one is accepted until ${result.previous_valid_until}`
            : `Set the ${result.adapter} webhook secret of site ${result.site_id}`,
        );
      });
    }),
});

export const webhookSecretCommand = defineCommand({
  meta: { name: 'webhook-secret', description: 'Manage the secrets inbound webhooks are verified with' },
  subCommands: { set },
});
