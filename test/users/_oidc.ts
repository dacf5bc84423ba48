// A real OpenID provider for the single sign-on tests: oidc-provider (the certified provider library) on port 0,
// with one confidential client, test people (their e-mail and email_verified claims), consent given for the client
// (first-party), and a login interaction the test completes over HTTP as a browser would after typing a password.
// Plus a tiny browser: follows redirects by hand and keeps cookies per host. Not a test file itself.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import Provider from 'oidc-provider';

export interface TestPerson {
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** People the provider knows, by their subject (sub). */
  people: Map<string, TestPerson>;
  /** UserInfo requests answered so far (the relying party asks when the ID token lacks the e-mail). */
  userInfoRequests(): number;
  /** Registers the client's redirect URIs (the relying parties' ports are known after the provider's). */
  setRedirectUris(uris: string[]): void;
  close(): Promise<void>;
}

/**
 * `emailInIdToken`: the e-mail claims in the ID token too, as Google sends them; by default only at UserInfo, as a
 * provider conforming to OpenID Connect Core 5.4 sends them for a code flow.
 */
export async function startTestProvider(options: { emailInIdToken?: boolean } = {}): Promise<TestProvider> {
  let userInfoRequests = 0;
  const people = new Map<string, TestPerson>();
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => handler!(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const issuer = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const clientId = 'sightline-test';
  const clientSecret = 'a-client-secret-of-the-test-provider-0123456789';
  let provider: Provider | undefined;

  const setRedirectUris = (uris: string[]) => {
    provider = new Provider(issuer, {
      clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: uris, grant_types: ['authorization_code'], response_types: ['code'] }],
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      pkce: { required: () => true },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      cookies: { keys: ['test-provider-cookie-key-0123456789'] },
      conformIdTokenClaims: options.emailInIdToken !== true,
      ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
      async findAccount(_ctx, sub) {
        const person = people.get(sub);
        if (!person) return undefined;
        return { accountId: sub, claims: async () => ({ sub, ...person }) };
      },
      // First-party client: consent is given once the person signed in.
      async loadExistingGrant(ctx) {
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
    });
    const callback = provider.callback();
    handler = (req, res) => {
      if (req.url?.startsWith('/me')) userInfoRequests++;
      // The login form's POST, reduced to the account chosen: /interaction/:uid/login?sub=…
      const login = /^\/interaction\/[^/]+\/login\?sub=([^&]+)$/.exec(req.url ?? '');
      if (login) {
        void provider!.interactionFinished(req, res, { login: { accountId: decodeURIComponent(login[1]!) } }, { mergeWithLastSubmission: false }).catch((error: Error) => {
          res.statusCode = 500;
          res.end(error.message);
        });
        return;
      }
      callback(req, res);
    };
  };
  handler = (_req, res) => {
    res.statusCode = 503;
    res.end('no client yet');
  };
  return {
    issuer,
    clientId,
    clientSecret,
    people,
    userInfoRequests: () => userInfoRequests,
    setRedirectUris,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A browser reduced to what the flow needs: cookies per host (any path) and redirects followed one at a time. */
export class TestBrowser {
  readonly cookies = new Map<string, Map<string, string>>();

  cookieHeader(url: string): string {
    return [...(this.cookies.get(new URL(url).host) ?? new Map()).entries()].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    const cookie = this.cookieHeader(url);
    const response = await fetch(url, { redirect: 'manual', headers: { ...(cookie ? { cookie } : {}), ...headers } });
    const jar = this.cookies.get(new URL(url).host) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const separator = pair!.indexOf('=');
      const name = pair!.slice(0, separator).trim();
      const value = pair!.slice(separator + 1).trim();
      if (value === '' || attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute))) jar.delete(name);
      else jar.set(name, value);
    }
    this.cookies.set(new URL(url).host, jar);
    return response;
  }

  /** Follows redirects from `url` until one leads to `stopAt` (an origin + path prefix); answers that Location. */
  async followUntil(url: string, stopAt: string): Promise<string> {
    let next = url;
    for (let hop = 0; hop < 10; hop++) {
      if (next.startsWith(stopAt)) return next;
      const response = await this.get(next);
      await response.arrayBuffer();
      const location = response.headers.get('location');
      if (!location) throw new Error(`${next} answered ${response.status} without a redirect`);
      next = new URL(location, next).href;
    }
    throw new Error(`no redirect to ${stopAt} within 10 hops`);
  }
}

/**
 * Drives a sign-in at the provider as a person would: from the relying party's redirect to the provider, through the
 * login interaction (signed in as `sub`), to the redirect back to `callbackPrefix`. Answers the callback URL.
 */
export async function signInAtProvider(browser: TestBrowser, authorizationUrl: string, sub: string, callbackPrefix: string): Promise<string> {
  const interaction = await browser.followUntil(authorizationUrl, new URL('/interaction/', authorizationUrl).href);
  return browser.followUntil(`${interaction}/login?sub=${encodeURIComponent(sub)}`, callbackPrefix);
}
