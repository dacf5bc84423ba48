// SMTP_URL, SMTP_FROM and PUBLIC_URL are checked when the configuration loads (the server's start): what is accepted
// and what is refused, with the variable named.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const from = 'Sightline <reports@example.com>';

describe('mail configuration', () => {
  it.each([
    ['smtps with credentials', { SMTP_URL: 'smtps://user:p%40ss@mail.example.com:465', SMTP_FROM: from }, { url: 'smtps://user:p%40ss@mail.example.com:465', from }],
    ['smtp without credentials or port', { SMTP_URL: 'smtp://relay.internal', SMTP_FROM: 'reports@example.com' }, { url: 'smtp://relay.internal', from: 'reports@example.com' }],
    ['smtp with a trailing slash', { SMTP_URL: 'smtp://relay.internal:2525/', SMTP_FROM: from }, { url: 'smtp://relay.internal:2525/', from }],
    ['unset', {}, undefined],
  ])('accepts %s', (_name, env, smtp) => {
    expect(loadConfig(env).smtp).toEqual(smtp);
  });

  it.each([
    ['an http URL', { SMTP_URL: 'http://mail.example.com', SMTP_FROM: from }, 'SMTP_URL'],
    ['a path', { SMTP_URL: 'smtp://mail.example.com/inbox', SMTP_FROM: from }, 'SMTP_URL'],
    ['a query', { SMTP_URL: 'smtp://mail.example.com?tls=no', SMTP_FROM: from }, 'SMTP_URL'],
    ['no host', { SMTP_URL: 'smtp://', SMTP_FROM: from }, 'SMTP_URL'],
    ['no SMTP_FROM', { SMTP_URL: 'smtp://mail.example.com' }, 'SMTP_FROM'],
    ['a From without @', { SMTP_URL: 'smtp://mail.example.com', SMTP_FROM: 'Sightline' }, 'SMTP_FROM'],
    ['a From with a line break', { SMTP_URL: 'smtp://mail.example.com', SMTP_FROM: 'A\r\nBcc: x@y.z <a@b.c>' }, 'SMTP_FROM'],
    ['a PUBLIC_URL with a query', { PUBLIC_URL: 'https://stats.example.com/?a=1' }, 'PUBLIC_URL'],
  ])('refuses %s, naming the variable', (_name, env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`${variable}: `));
  });

  it('points links at PUBLIC_URL, else at HOST:PORT', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://stats.example.com/' }).mailLinkBase).toBe('https://stats.example.com');
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).mailLinkBase).toBe('http://0.0.0.0:9000');
    expect(loadConfig({ HOST: '::1', PORT: '9000' }).mailLinkBase).toBe('http://[::1]:9000');
  });
});
