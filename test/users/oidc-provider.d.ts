// The part of oidc-provider (the test's OpenID provider; it ships no types) that test/users/_oidc.ts uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface OidcContext {
    oidc: { provider: Provider; client?: { clientId: string }; session?: { accountId: string } };
  }
  interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }
  interface Configuration {
    clients: Record<string, unknown>[];
    claims: Record<string, string[]>;
    pkce: { required: () => boolean };
    features: Record<string, { enabled: boolean }>;
    interactions: { url: (ctx: OidcContext, interaction: { uid: string }) => string };
    cookies: { keys: string[] };
    ttl: Record<string, number>;
    conformIdTokenClaims: boolean;
    findAccount(ctx: OidcContext, sub: string): Promise<Account | undefined>;
    loadExistingGrant(ctx: OidcContext): Promise<Grant | undefined>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    Grant: new (properties: { clientId: string; accountId: string }) => Grant;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
  }
}
