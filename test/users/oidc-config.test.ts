// OIDC_* and PUBLIC_URL in the configuration: unset keeps single sign-on off; each variable is validated with a
// message naming it; a workspace that takes first sign-ins needs the allowed domains named; a flag wins.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const base = { OIDC_ISSUER: 'https://accounts.example.com', OIDC_CLIENT_ID: 'client', OIDC_CLIENT_SECRET: 'secret' };

describe('single sign-on configuration', () => {
  it.each([
    ['nothing set: off', {}, undefined],
    ['issuer, client and secret: invited-only, any domain, viewer', base, { ...expectedOf(base), allowedDomains: [], defaultRole: 'viewer', workspace: undefined }],
    [
      'a workspace with its domains (trimmed, lower-cased, a leading @ dropped) and a role',
      { ...base, OIDC_WORKSPACE: 'acme', OIDC_ALLOWED_DOMAINS: ' Example.com,@corp.example ,', OIDC_DEFAULT_ROLE: 'analyst' },
      { ...expectedOf(base), allowedDomains: ['example.com', 'corp.example'], defaultRole: 'analyst', workspace: 'acme' },
    ],
    ['plain http on the loopback interface', { ...base, OIDC_ISSUER: 'http://127.0.0.1:9000' }, { ...expectedOf(base), issuer: 'http://127.0.0.1:9000', allowedDomains: [], defaultRole: 'viewer', workspace: undefined }],
  ])('%s', (_name, env, expected) => {
    expect(loadConfig(env).oidc).toEqual(expected);
  });

  it.each([
    ['a client without an issuer', { OIDC_CLIENT_ID: 'client' }, 'OIDC_ISSUER: must be set when OIDC_CLIENT_ID is'],
    ['domains without an issuer', { OIDC_ALLOWED_DOMAINS: 'example.com' }, 'OIDC_ISSUER: must be set when OIDC_ALLOWED_DOMAINS is'],
    ['an issuer without a client id', { OIDC_ISSUER: base.OIDC_ISSUER, OIDC_CLIENT_SECRET: 's' }, 'OIDC_CLIENT_ID: must be set when OIDC_ISSUER is'],
    ['an issuer without a secret', { OIDC_ISSUER: base.OIDC_ISSUER, OIDC_CLIENT_ID: 'c' }, 'OIDC_CLIENT_SECRET: must be set when OIDC_ISSUER is'],
    ['plain http to another machine', { ...base, OIDC_ISSUER: 'http://idp.example.com' }, 'OIDC_ISSUER: must be an https:// URL'],
    ['not a URL', { ...base, OIDC_ISSUER: 'accounts.example.com' }, 'OIDC_ISSUER: must be an http:// or https:// URL'],
    ['an unknown role', { ...base, OIDC_DEFAULT_ROLE: 'operator' }, 'OIDC_DEFAULT_ROLE'],
    ['a workspace for first sign-ins from any domain', { ...base, OIDC_WORKSPACE: 'acme' }, 'OIDC_ALLOWED_DOMAINS: must name the e-mail domains'],
    ['a public URL with a path', { PUBLIC_URL: 'https://example.com/analytics' }, 'PUBLIC_URL: must be an http:// or https:// origin'],
  ])('refuses %s', (_name, env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('takes PUBLIC_URL without its trailing slash, and a flag over the variable', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://analytics.example.com/' }).publicUrl).toBe('https://analytics.example.com');
    const config = loadConfig({ ...base, OIDC_DEFAULT_ROLE: 'admin' }, { 'oidc-default-role': 'analyst', 'oidc-client-id': 'from-flag' });
    expect(config.oidc).toMatchObject({ defaultRole: 'analyst', clientId: 'from-flag' });
  });
});

function expectedOf(env: typeof base) {
  return { issuer: env.OIDC_ISSUER, clientId: env.OIDC_CLIENT_ID, clientSecret: env.OIDC_CLIENT_SECRET };
}
