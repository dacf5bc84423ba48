// CLICKHOUSE_* in the configuration: unset keeps SQLite only; each variable is validated with a message naming it;
// a flag wins over the variable, as for every other setting.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('ClickHouse configuration', () => {
  it.each([
    ['nothing set: SQLite only', {}, undefined],
    ['a URL alone: the default database', { CLICKHOUSE_URL: 'http://127.0.0.1:8123' }, { url: 'http://127.0.0.1:8123', database: 'sightline', user: undefined, password: undefined }],
    ['a trailing slash is dropped', { CLICKHOUSE_URL: 'https://ch.example:8443/' }, { url: 'https://ch.example:8443', database: 'sightline', user: undefined, password: undefined }],
    [
      'every variable',
      { CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_DATABASE: 'analytics_2', CLICKHOUSE_USER: 'sightline', CLICKHOUSE_PASSWORD: 's3cret' },
      { url: 'http://ch:8123', database: 'analytics_2', user: 'sightline', password: 's3cret' },
    ],
    ['an empty variable counts as unset', { CLICKHOUSE_URL: '' }, undefined],
    [
      'a cluster',
      { CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'two_shards.eu-1' },
      { url: 'http://ch:8123', database: 'sightline', user: undefined, password: undefined, cluster: 'two_shards.eu-1' },
    ],
    ['a 64-character cluster name, the longest', { CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'c'.repeat(64) }, { url: 'http://ch:8123', database: 'sightline', cluster: 'c'.repeat(64) }],
    ['a 64-character database name, the longest', { CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_DATABASE: 'd'.repeat(64) }, { url: 'http://ch:8123', database: 'd'.repeat(64), user: undefined, password: undefined }],
      ['LOG_RETAIN_DAYS 1, the fewest', { CLICKHOUSE_URL: 'http://ch:8123', LOG_RETAIN_DAYS: '1' }, { url: 'http://ch:8123', database: 'sightline', user: undefined, password: undefined, logRetainDays: 1 }],
    ['LOG_RETAIN_DAYS 3650, the most', { CLICKHOUSE_URL: 'http://ch:8123', LOG_RETAIN_DAYS: '3650' }, { url: 'http://ch:8123', database: 'sightline', user: undefined, password: undefined, logRetainDays: 3650 }],
])('%s', (_name, env, expected) => {
    expect(loadConfig(env).clickhouse).toEqual(expected);
  });

  it.each([
    ['not a URL', { CLICKHOUSE_URL: '127.0.0.1:8123' }, 'CLICKHOUSE_URL: must be an http:// or https:// URL'],
    ['another scheme', { CLICKHOUSE_URL: 'tcp://127.0.0.1:9000' }, 'CLICKHOUSE_URL: must be an http:// or https:// URL'],
    ['a query in the URL', { CLICKHOUSE_URL: 'http://ch:8123/?user=x' }, 'CLICKHOUSE_URL: must be an http:// or https:// URL'],
    ['a database name with a quote', { CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_DATABASE: "x'; DROP" }, 'CLICKHOUSE_DATABASE: must be a name'],
    ['a 65-character database name', { CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_DATABASE: 'd'.repeat(65) }, 'CLICKHOUSE_DATABASE: must be a name'],
    ['a database name starting with a digit', { CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_DATABASE: '1db' }, 'CLICKHOUSE_DATABASE: must be a name'],
    ['a user without a URL', { CLICKHOUSE_USER: 'u' }, 'CLICKHOUSE_URL: must be set when CLICKHOUSE_USER, CLICKHOUSE_PASSWORD or CLICKHOUSE_CLUSTER is'],
    ['a cluster without a URL', { CLICKHOUSE_CLUSTER: 'two_shards' }, 'CLICKHOUSE_URL: must be set when CLICKHOUSE_USER, CLICKHOUSE_PASSWORD or CLICKHOUSE_CLUSTER is'],
    ['a 65-character cluster name', { CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'c'.repeat(65) }, 'CLICKHOUSE_CLUSTER: must be a cluster name'],
    ['a cluster name with a quote', { CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: "c', 'x" }, 'CLICKHOUSE_CLUSTER: must be a cluster name'],
    ['a cluster name starting with a digit', { CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: '2shards' }, 'CLICKHOUSE_CLUSTER: must be a cluster name'],
    ['LOG_RETAIN_DAYS 0', { CLICKHOUSE_URL: 'http://ch:8123', LOG_RETAIN_DAYS: '0' }, 'LOG_RETAIN_DAYS'],
    ['LOG_RETAIN_DAYS 3651', { CLICKHOUSE_URL: 'http://ch:8123', LOG_RETAIN_DAYS: '3651' }, 'LOG_RETAIN_DAYS'],
    ['LOG_RETAIN_DAYS not a number', { CLICKHOUSE_URL: 'http://ch:8123', LOG_RETAIN_DAYS: '7d' }, 'LOG_RETAIN_DAYS: must be a whole number'],
    ['LOG_RETAIN_DAYS without a URL', { LOG_RETAIN_DAYS: '7' }, 'CLICKHOUSE_URL: must be set when LOG_RETAIN_DAYS is'],
    ['a password without a user', { CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_PASSWORD: 'p' }, 'CLICKHOUSE_USER: must be set when CLICKHOUSE_PASSWORD is'],
  ])('refuses %s', (_name, env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('a flag wins over the variable', () => {
    const config = loadConfig(
      { CLICKHOUSE_URL: 'http://from-env:8123', CLICKHOUSE_DATABASE: 'env', CLICKHOUSE_CLUSTER: 'env' },
      { 'clickhouse-url': 'http://from-flag:8123', 'clickhouse-database': 'flag', 'clickhouse-cluster': 'flag', 'log-retain-days': '30' },
    );
    expect(config.clickhouse).toMatchObject({ url: 'http://from-flag:8123', database: 'flag', cluster: 'flag', logRetainDays: 30 });
  });
});
