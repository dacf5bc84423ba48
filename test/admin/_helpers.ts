// Shared pieces of the administration tests: both path prefixes, a hand-driven clock, scenario tables and the
// flat error envelope. Not a test file itself (vitest only collects *.test.ts).
import { expect } from 'vitest';
import type { Clock } from '../../src/clock.ts';
import { testAdminToken, type TestServer } from '../_setup.ts';
import type { TestResponse } from '../_http.ts';

/** Every route answers at its unprefixed path and under /v1 (spec, Versioning). */
export const prefixes = ['', '/v1'] as const;
export type Prefix = (typeof prefixes)[number];

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface ManualClock extends Clock {
  advance(milliseconds: number): void;
  iso(): string;
}

/** A clock that moves only when the test says so: no test depends on how fast requests run. */
export function manualClock(start = '2026-03-01T12:00:00.000Z'): ManualClock {
  let now = Date.parse(start);
  return {
    now: () => now,
    advance: (milliseconds) => {
      now += milliseconds;
    },
    iso: () => new Date(now).toISOString(),
  };
}

/** The flat envelope of /workspaces* (CONTRACT section 8), optionally with a detail at each of `paths`. */
export function flatError(code: string, paths?: string[]): unknown {
  if (!paths) return { error: code, message: expect.any(String) };
  return {
    error: code,
    message: expect.any(String),
    details: expect.arrayContaining(paths.map((path) => ({ path, message: expect.any(String) }))),
  };
}

/** Asserts a flat error envelope and nothing else at the top level. */
export function expectFlatError(response: TestResponse, status: number, code: string, paths?: string[]): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body).toEqual(flatError(code, paths));
  if (paths) {
    for (const detail of response.body.details as unknown[]) expect(detail).toEqual({ path: expect.any(String), message: expect.any(String) });
  }
}

export type Tokens = Record<string, string | null>;

/**
 * One row of a scenario table. `url` is unprefixed; `token` names an entry of the table's tokens ('admin' is the
 * admin token, 'none' sends no Authorization header). `expect` is the exact body, or a function for finer checks.
 */
export interface Scenario {
  name: string;
  method: string;
  url: string;
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
  expect?: unknown | ((response: TestResponse) => void);
}

export function resolveToken(tokens: Tokens, name: string | undefined): string | null {
  if (name === undefined || name === 'admin') return testAdminToken;
  if (name === 'none') return null;
  if (!(name in tokens)) throw new Error(`scenario token ${name} is not defined`);
  return tokens[name]!;
}

export async function runScenario(server: TestServer, prefix: Prefix, tokens: Tokens, scenario: Scenario): Promise<TestResponse> {
  const response = await server.request(scenario.method, prefix + scenario.url, {
    token: resolveToken(tokens, scenario.token),
    body: scenario.body,
    headers: scenario.headers,
  });
  expect(response.status, `${scenario.method} ${prefix}${scenario.url}: ${response.text}`).toBe(scenario.status);
  if (typeof scenario.expect === 'function') (scenario.expect as (response: TestResponse) => void)(response);
  else if (scenario.expect !== undefined) expect(response.body).toEqual(scenario.expect);
  return response;
}

/** Creates an API key through the API with the admin token; returns its id and plaintext. */
export async function createKey(server: TestServer, slug: string, scopes: string[], label = 'test key'): Promise<{ id: string; plaintext: string }> {
  const response = await server.request('POST', `/workspaces/${slug}/keys`, { body: { label, scopes } });
  if (response.status !== 201) throw new Error(`create key: ${response.status} ${response.text}`);
  return { id: response.body.id, plaintext: response.body.plaintext };
}

/** Creates a key and revokes it at once: a credential that once worked and must now be refused. */
export async function createRevokedKey(server: TestServer, slug: string, scopes: string[]): Promise<{ id: string; plaintext: string }> {
  const key = await createKey(server, slug, scopes, 'revoked');
  const revoked = await server.request('DELETE', `/workspaces/${slug}/keys/${key.id}`);
  if (revoked.status !== 200) throw new Error(`revoke key: ${revoked.status} ${revoked.text}`);
  return key;
}

export function auditRowCount(server: TestServer): number {
  return (server.db.prepare('SELECT count(*) AS n FROM audit_log').get() as { n: number }).n;
}

export function padTo(length: number, fill = 'a'): string {
  return fill.repeat(length);
}
