// The clickhouse-server of `npm run bench -- clickhouse`: the tests' helper (test/clickhouse/_server.ts) generates a
// config for a throw-away server in a temp dir; the benchmark needs its data kept between runs (the 100M load takes
// minutes) and the settings docs/clickhouse.md recommends for a 2 GB VPS, so it writes the same kind of config with
// those settings and a data directory it is given. Loopback only, free ports (the helper's freePort).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The settings measured with, as docs/clickhouse.md's "2 GB VPS" section gives them. */
export const vpsSettings = {
  maxMemoryUsage: 1_000_000_000,
  maxBytesBeforeExternalGroupBy: 400_000_000,
  maxThreads: 2,
  markCacheBytes: 268_435_456,
  uncompressedCacheBytes: 0,
  compression: 'zstd',
};

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

export function configXml(dir, httpPort, tcpPort, settings = vpsSettings) {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/log/server.log</log><errorlog>${dir}/log/error.log</errorlog><size>10M</size><count>1</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <max_connections>64</max_connections>
  <keep_alive_timeout>30</keep_alive_timeout>
  <max_concurrent_queries>16</max_concurrent_queries>
  <uncompressed_cache_size>${settings.uncompressedCacheBytes}</uncompressed_cache_size>
  <mark_cache_size>${settings.markCacheBytes}</mark_cache_size>
  <mlock_executable>false</mlock_executable>
  <timezone>UTC</timezone>
  <compression><case><min_part_size>0</min_part_size><min_part_size_ratio>0</min_part_size_ratio><method>${settings.compression}</method></case></compression>
  <remote_servers incl="clickhouse_remote_servers" optional="true" />
  <zookeeper incl="zookeeper-servers" optional="true" />
  <macros incl="macros" optional="true" />
  <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
  <max_session_timeout>3600</max_session_timeout>
  <default_session_timeout>60</default_session_timeout>
</yandex>
`;
}

export function usersXml(settings = vpsSettings) {
  return `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>${settings.maxMemoryUsage}</max_memory_usage>
      <max_bytes_before_external_group_by>${settings.maxBytesBeforeExternalGroupBy}</max_bytes_before_external_group_by>
      <max_threads>${settings.maxThreads}</max_threads>
      <use_uncompressed_cache>0</use_uncompressed_cache>
      <load_balancing>random</load_balancing>
    </default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;
}

/** Starts a server on `dir` (created or reused); resolves when /ping answers. */
export async function startBenchClickHouse(dir, settings = vpsSettings) {
  for (const sub of ['data', 'tmp', 'log', 'user_files', 'format_schemas']) mkdirSync(join(dir, sub), { recursive: true });
  const httpPort = await freePort();
  let tcpPort = await freePort();
  while (tcpPort === httpPort) tcpPort = await freePort();
  writeFileSync(join(dir, 'config.xml'), configXml(dir, httpPort, tcpPort, settings));
  writeFileSync(join(dir, 'users.xml'), usersXml(settings));
  const binary = ['/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-server'].find((path) => existsSync(path)) ?? 'clickhouse-server';
  const child = spawn(binary, [`--config-file=${join(dir, 'config.xml')}`], { cwd: dir, stdio: ['ignore', 'ignore', 'ignore'] });
  const url = `http://127.0.0.1:${httpPort}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`clickhouse-server exited while starting: ${readFileSync(join(dir, 'log', 'error.log'), 'utf8').slice(-2000)}`);
    if (Date.now() - started > 600_000) throw new Error('clickhouse-server did not start within 10 minutes');
    const ok = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1000) }).then((response) => response.ok, () => false);
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid,
    /** Resident memory now and its peak (VmRSS, VmHWM), in MiB. */
    memory() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kib = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
    },
    close() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        child.once('exit', () => (clearTimeout(timer), resolve()));
        child.kill('SIGTERM');
      });
    },
  };
}
