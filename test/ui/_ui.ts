// Helpers of the admin UI tests: sign in through POST /v1/ui/session and keep the cookie and the CSRF token.
import { expect } from 'vitest';

export interface SignedIn {
  cookie: string;
  csrf: string;
  setCookie: string;
  body: Record<string, unknown>;
}

/** Signs in with `token`; fails the test unless the server answers 201 with a session cookie. */
export async function signIn(url: string, token: string, headers: Record<string, string> = {}): Promise<SignedIn> {
  const response = await fetch(`${url}/v1/ui/session`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ token }) });
  const body = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(body)).toBe(201);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const cookie = /^(sightline_session=[^;]+)/.exec(setCookie)?.[1];
  expect(cookie).toBeDefined();
  return { cookie: cookie!, csrf: body.csrf as string, setCookie, body };
}
