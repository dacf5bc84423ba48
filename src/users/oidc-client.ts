// The relying party of single sign-on: openid-client (a certified OpenID Connect implementation) configured from the
// issuer's discovery document, fetched once per app on first use (a failed discovery is retried on the next sign-in).
import * as client from 'openid-client';
import type { OidcConfig } from '../config.ts';
import type { AppContext } from '../context.ts';

const configurations = new WeakMap<AppContext, Promise<client.Configuration>>();

/** Plain http is accepted only for an issuer on the loopback interface (a provider on the same machine, or a test). */
export function isLoopbackIssuer(issuer: string): boolean {
  const { protocol, hostname } = new URL(issuer);
  return protocol === 'http:' && (hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname));
}

export function oidcClientOf(context: AppContext, oidc: OidcConfig): Promise<client.Configuration> {
  let pending = configurations.get(context);
  if (!pending) {
    pending = client.discovery(new URL(oidc.issuer), oidc.clientId, undefined, client.ClientSecretBasic(oidc.clientSecret), {
      timeout: 10,
      ...(isLoopbackIssuer(oidc.issuer) ? { execute: [client.allowInsecureRequests] } : {}),
    });
    configurations.set(context, pending);
    pending.catch(() => configurations.delete(context));
  }
  return pending;
}

export { client };
