// The test helper's own checks: a clickhouse-server starts on loopback from the generated config, answers SQL over
// HTTP, survives a crash-restart with its data, and says how long it took to start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClickHouse, type ClickHouseTestServer } from './_server.ts';

describe('clickhouse test server', () => {
  let clickhouse: ClickHouseTestServer;
  beforeAll(async () => {
    clickhouse = await startClickHouse();
    console.log(`clickhouse-server answered in ${clickhouse.startedInMs} ms`);
  }, 90_000);
  afterAll(async () => {
    await clickhouse?.close();
  });

  it('answers SQL on loopback and keeps its data across a kill and restart', async () => {
    const query = async (sql: string) => {
      const response = await fetch(clickhouse.url, { method: 'POST', body: sql });
      expect(response.status, await response.clone().text()).toBe(200);
      return (await response.text()).trim();
    };
    expect(clickhouse.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await query('SELECT version()')).toMatch(/^\d+\.\d+/);
    await query('CREATE TABLE default.kept (n UInt32) ENGINE = MergeTree ORDER BY n');
    await query('INSERT INTO default.kept VALUES (1), (2)');
    await clickhouse.kill();
    await expect(fetch(`${clickhouse.url}/ping`)).rejects.toThrow();
    await clickhouse.restart();
    expect(await query('SELECT sum(n) FROM default.kept')).toBe('3');
  }, 90_000);
});
