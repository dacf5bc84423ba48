// The README's first event, as a newcomer runs it: the shell blocks of "Sending events", unchanged but for the
// server's address, through sh and the real curl against the shipped server on a fresh DATA_DIR (its admin token
// generated, as on a first start). The 202 must be the one the README shows, and the event must then be listed and
// counted: curl's own User-Agent is a bot's, and a bot's event is acknowledged but shows nowhere.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { childEnvironment, repositoryRoot } from '../cli/cli-helpers.ts';
import { poll } from '../events/_helpers.ts';
import { useShippedServers } from './_server.ts';

const execFileAsync = promisify(execFile);
const readmeAddress = 'http://127.0.0.1:8787';
/** Printed between the blocks so each block's output can be told apart; not part of any block. */
const separator = '--- next README block ---';

/** The ```sh blocks of the README's "Sending events" section, in order. */
function sendingEventsBlocks(): string[] {
  const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
  const section = readme.split('\n## Sending events\n')[1]?.split('\n## ')[0];
  if (!section) throw new Error('README.md has no "Sending events" section');
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/** The JSON a block shows as its answer, in a `# <status> <json>` comment line. */
function shownAnswer(block: string, status: number): unknown {
  const line = block.split('\n').find((text) => text.startsWith(`# ${status} `));
  if (!line) throw new Error(`no "# ${status} …" line in the block:\n${block}`);
  return JSON.parse(line.slice(`# ${status} `.length));
}

const servers = useShippedServers({ testTimeout: 90_000 });

describe("the README's first event", () => {
  it('is accepted as the README shows (not a bot), then listed by list-v2 and counted in the pageviews report', async () => {
    const blocks = sendingEventsBlocks();
    // Creating the site, sending the event, reading it back.
    expect(blocks).toHaveLength(3);
    expect(blocks[1]).toContain(`curl -X POST ${readmeAddress}/events`);
    const server = await servers.start({ ADMIN_TOKEN: undefined });
    const script = blocks.map((block) => block.replaceAll(readmeAddress, server.url)).join(`\nprintf '\\n%s\\n' '${separator}'\n`);
    // As typed into a shell in the repository's directory: bin/sightline finds node on the PATH.
    const env = childEnvironment({ DATA_DIR: server.dataDir, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` });
    const run = await execFileAsync('sh', ['-e', '-c', script], { cwd: repositoryRoot, env }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`the README's blocks failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}\n${server.output()}`);
    });
    const [, sent, read] = run.stdout.split(`\n${separator}\n`);

    // Exactly the answer the README shows: accepted, and no bot among the accepted.
    expect(JSON.parse(sent!)).toEqual(shownAnswer(blocks[1]!, 202));
    const eventId = /"id":"([0-9a-f-]{36})"/.exec(blocks[1]!)![1]!;
    const today = new Date().toISOString().slice(0, 10);

    // The README's own read: the event is in the list, with the browser the User-Agent names.
    const listed = JSON.parse(read!) as { data: { events: Record<string, unknown>[] } };
    expect(listed.data.events).toEqual([expect.objectContaining({ id: eventId, type: 'pageview', path: '/pricing', source: 'newsletter', browser: 'Firefox' })]);

    // And in a report, once the projector has counted it (a report read right after the 202 may say it lags).
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const counted = await poll(async () => {
      const report = await server.request('GET', `/v1/sites/my-site/pageviews?from=${yesterday}&to=${today}`);
      expect(report.status, report.text).toBe(200);
      return report.body.count === 1 ? report.body : undefined;
    }, 30_000);
    expect(counted.count).toBe(1);
  });
});
