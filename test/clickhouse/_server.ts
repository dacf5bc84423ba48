// A real clickhouse-server for the ClickHouse tests: one process on loopback, on free ports found at run time, with
// its data, temporary files and logs in a temp dir and a small memory footprint, started from a generated config
// (a <yandex> root, as 18.16 wants) and stopped after the tests. Never skipped: build/prepare-test-machine.mjs
// installs the server on a fresh machine.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ClickHouseTestServer {
  /** The HTTP interface, e.g. http://127.0.0.1:40123 */
  url: string;
  httpPort: number;
  tcpPort: number;
  dir: string;
  /** Milliseconds from spawn to the first HTTP answer (the last start). */
  startedInMs: number;
  /** Kills the process (SIGKILL: a crash, not a shutdown) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data (after kill). */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

const serverBinary = ['/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-server'].find((path) => existsSync(path)) ?? 'clickhouse-server';

/** A port nothing listens on now (the kernel's choice for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function configXml(dir: string, listenHost: string, httpPort: number, tcpPort: number, remoteServers: string): string {
  // Small caches: the tests share a 2-core machine with other developers' runs.
  return `<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>${dir}/log/server.log</log>
    <errorlog>${dir}/log/error.log</errorlog>
    <size>10M</size>
    <count>1</count>
  </logger>
  <listen_host>${listenHost}</listen_host>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <max_connections>1024</max_connections>
  <keep_alive_timeout>3</keep_alive_timeout>
  <max_concurrent_queries>16</max_concurrent_queries>
  <uncompressed_cache_size>16777216</uncompressed_cache_size>
  <mark_cache_size>16777216</mark_cache_size>
  <mlock_executable>false</mlock_executable>
  <timezone>UTC</timezone>
  ${remoteServers || '<remote_servers incl="clickhouse_remote_servers" optional="true" />'}
  <zookeeper incl="zookeeper-servers" optional="true" />
  <macros incl="macros" optional="true" />
  <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
  <max_session_timeout>3600</max_session_timeout>
  <default_session_timeout>60</default_session_timeout>
</yandex>
`;
}

const usersXml = (profile: Record<string, number>) => `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>1000000000</max_memory_usage>
      <max_threads>2</max_threads>
      <use_uncompressed_cache>0</use_uncompressed_cache>
      <load_balancing>random</load_balancing>
      ${Object.entries(profile).map(([name, value]) => `<${name}>${value}</${name}>`).join('\n      ')}
    </default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.0/8</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas>
    <default>
      <interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval>
    </default>
  </quotas>
</yandex>
`;

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1000) });
    return response.ok;
  } catch {
    return false;
  }
}

interface StartOptions {
  startTimeoutMs?: number;
  /** The loopback address it listens on (default 127.0.0.1; a cluster's second server takes 127.0.0.2). */
  listenHost?: string;
  httpPort?: number;
  tcpPort?: number;
  /** A <remote_servers> element naming the cluster's servers. */
  remoteServers?: string;
  /** Settings of the default profile besides the small-footprint ones, e.g. a lowered max_ast_elements. */
  profile?: Record<string, number>;
}

/**
 * Starts a clickhouse-server and resolves once its HTTP interface answers /ping (within `startTimeoutMs`).
 * @example const clickhouse = await startClickHouse(); afterAll(() => clickhouse.close());
 */
export async function startClickHouse(options: StartOptions = {}): Promise<ClickHouseTestServer> {
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const listenHost = options.listenHost ?? '127.0.0.1';
  const dir = mkdtempSync(join(tmpdir(), 'sightline-clickhouse-'));
  for (const sub of ['data', 'tmp', 'log', 'user_files', 'format_schemas']) mkdirSync(join(dir, sub));
  const httpPort = options.httpPort ?? (await freePort());
  let tcpPort = options.tcpPort ?? (await freePort());
  while (tcpPort === httpPort) tcpPort = await freePort();
  writeFileSync(join(dir, 'config.xml'), configXml(dir, listenHost, httpPort, tcpPort, options.remoteServers ?? ''));
  writeFileSync(join(dir, 'users.xml'), usersXml(options.profile ?? {}));
  const url = `http://${listenHost}:${httpPort}`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let stderr = '';

  const start = async () => {
    const startedAt = Date.now();
    stderr = '';
    const spawned = spawn(serverBinary, [`--config-file=${join(dir, 'config.xml')}`], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    spawned.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.length < 10_000) stderr += chunk.toString();
    });
    let gone = false;
    exited = new Promise((resolve) => spawned.once('exit', () => ((gone = true), resolve())));
    child = spawned;
    while (!(await answers(url))) {
      if (gone) throw new Error(`clickhouse-server exited while starting (${dir}): ${stderr.slice(0, 2000)}`);
      if (Date.now() - startedAt > startTimeoutMs) {
        spawned.kill('SIGKILL');
        throw new Error(`clickhouse-server did not answer on ${url} within ${startTimeoutMs} ms: ${stderr.slice(0, 2000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    server.startedInMs = Date.now() - startedAt;
  };

  const stop = async (signal: NodeJS.Signals) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child?.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  const server: ClickHouseTestServer = {
    url,
    httpPort,
    tcpPort,
    dir,
    startedInMs: 0,
    kill: () => stop('SIGKILL'),
    restart: start,
    close: async () => {
      await stop('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await start();
  return server;
}

/**
 * Polls `probe` every 100 ms until it gives a value (a probe that throws counts as none), at most `boundMs`: a wait
 * for a state, never a timing that decides a test.
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, boundMs = 60_000): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${boundMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A port nothing listens on now on every one of these loopback addresses. */
async function portFreeOn(hosts: readonly string[]): Promise<number> {
  for (;;) {
    const port = await freePort();
    const free = await Promise.all(
      hosts.map(
        (host) =>
          new Promise<boolean>((resolve) => {
            const probe = createServer();
            probe.once('error', () => resolve(false));
            probe.listen(port, host, () => probe.close(() => resolve(true)));
          }),
      ),
    );
    if (free.every(Boolean)) return port;
  }
}

export interface ClickHouseTestCluster {
  /** The cluster's name in both servers' remote_servers (CLICKHOUSE_CLUSTER). */
  name: string;
  /** Shard 1 (127.0.0.1) and shard 2 (127.0.0.2); CLICKHOUSE_URL is shard 1's url. */
  shards: [ClickHouseTestServer, ClickHouseTestServer];
  close(): Promise<void>;
}

/**
 * Two clickhouse-servers on loopback forming a two-shard cluster, as two hosts of a real one would: each on its own
 * address (127.0.0.1, 127.0.0.2) with the same HTTP port (Sightline reaches every host at CLICKHOUSE_URL's port), on
 * different TCP ports (a host of the cluster whose address and TCP port are the server's own counts as local), with
 * a remote_servers config naming both. Sightline creates its tables on each (no ZooKeeper, no ON CLUSTER).
 */
export async function startClickHouseCluster(options: Pick<StartOptions, 'startTimeoutMs' | 'profile'> = {}): Promise<ClickHouseTestCluster> {
  const name = 'sightline_test';
  const hosts = ['127.0.0.1', '127.0.0.2'] as const;
  const httpPort = await portFreeOn(hosts);
  const tcpPorts = [await portFreeOn(hosts), await portFreeOn(hosts)];
  while (tcpPorts[1] === tcpPorts[0] || tcpPorts.includes(httpPort)) tcpPorts[1] = await portFreeOn(hosts);
  const replica = (index: number) => `<shard><replica><host>${hosts[index]}</host><port>${tcpPorts[index]}</port></replica></shard>`;
  const remoteServers = `<remote_servers><${name}>${replica(0)}${replica(1)}</${name}></remote_servers>`;
  const shards = (await Promise.all(
    hosts.map((listenHost, index) => startClickHouse({ ...options, listenHost, httpPort, tcpPort: tcpPorts[index], remoteServers })),
  )) as [ClickHouseTestServer, ClickHouseTestServer];
  return { name, shards, close: async () => void (await Promise.all(shards.map((shard) => shard.close()))) };
}

/**
 * LOG_RETAIN_DAYS for servers whose events are weeks older than their manual clock and whose test is not about
 * trimming: the longest retention, so the whole log stays (trimming is tested in log-trimming.test.ts).
 */
export const keepWholeLog = '3650';
