// Environment variables and command-line flags become one typed, validated Config (a flag wins over the variable).
import * as v from 'valibot';

const booleanText = v.pipe(
  v.picklist(['true', 'false', '1', '0', 'yes', 'no']),
  v.transform((text) => text === 'true' || text === '1' || text === 'yes'),
);
const integerText = (min: number, max: number) =>
  v.pipe(v.string(), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number), v.minValue(min), v.maxValue(max));
/** TRUST_PROXY: how many proxies stand in front of the server; false is 0 and true is 1 (README, Configuration). */
const proxyCountText = v.pipe(
  v.string(),
  v.regex(/^(true|false|yes|no|\d{1,2})$/, 'must be true, false or the number of proxies in front of the server (0-99)'),
  v.transform((text) => (text === 'true' || text === 'yes' ? 1 : text === 'false' || text === 'no' ? 0 : Number(text))),
);

/** CONTRACT 12: events older than this many days that ClickHouse holds leave the SQLite log. */

const ConfigSchema = v.object({
  HOST: v.optional(v.pipe(v.string(), v.minLength(1)), '127.0.0.1'),
  PORT: v.optional(integerText(0, 65535), '8787'),
  DATA_DIR: v.optional(v.pipe(v.string(), v.minLength(1)), './data'),
  ADMIN_TOKEN: v.optional(v.pipe(v.string(), v.minLength(16, 'must be at least 16 characters'))),
  REQUIRE_API_KEY: v.optional(v.picklist(['none', 'tag', 'require']), 'none'),
  SCHEMA_BUNDLE_PATH: v.optional(v.pipe(v.string(), v.minLength(1))),
  SCHEMA_MODE: v.optional(v.picklist(['reject', 'quarantine']), 'reject'),
  TRUST_PROXY: v.optional(proxyCountText, 'false'),
  GEOIP_DB: v.optional(v.pipe(v.string(), v.minLength(1))),
  INTERNAL_IPS: v.optional(v.string(), ''),
  METRICS_PUBLIC: v.optional(booleanText, 'false'),
  ALLOW_PRIVATE_WEBHOOK_TARGETS: v.optional(booleanText, 'false'),
  RATE_LIMIT_SITE: v.optional(integerText(1, 10_000_000), '5000'),
  RATE_LIMIT_IP: v.optional(integerText(1, 10_000_000), '200'),
  AUTH_FAILURES_PER_MINUTE: v.optional(integerText(1, 1_000_000), '10'),
  AUTH_FAILURE_BURST: v.optional(integerText(1, 1_000_000), '20'),
  EVENT_STREAMS_PER_SITE: v.optional(integerText(1, 10_000), '5'),
  EVENT_STREAMS_PER_CREDENTIAL: v.optional(integerText(1, 100_000), '20'),
  EVENT_STREAMS_PER_WORKSPACE: v.optional(integerText(1, 100_000), '50'),
  EVENT_STREAMS_TOTAL: v.optional(integerText(1, 100_000), '200'),
  EVENT_STREAM_BUFFER_BYTES: v.optional(integerText(65_536, 1_073_741_824), '1048576'),
  EVENT_STREAM_HEARTBEAT_MS: v.optional(integerText(10, 3_600_000), '15000'),
  HTTP_HEADERS_TIMEOUT_MS: v.optional(integerText(10, 3_600_000), '10000'),
  HTTP_REQUEST_TIMEOUT_MS: v.optional(integerText(10, 3_600_000), '60000'),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: v.optional(integerText(10, 3_600_000), '125000'),
  HTTP_MAX_CONNECTIONS: v.optional(integerText(1, 1_000_000), '2048'),
  SYNCHRONOUS: v.optional(v.picklist(['normal', 'full']), 'normal'),
  INGEST_WRITER: v.optional(v.picklist(['inline', 'thread']), 'inline'),
  IMPORT_MAX_BYTES: v.optional(integerText(1, Number.MAX_SAFE_INTEGER), '21474836480'),
  READ_WAIT_MS: v.optional(integerText(0, 60_000), '2000'),
  CLICKHOUSE_URL: v.optional(v.pipe(v.string(), v.regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// URL without a query, e.g. http://127.0.0.1:8123'))),
  CLICKHOUSE_DATABASE: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a name of letters, digits and underscores (at most 64)')), 'sightline'),
  CLICKHOUSE_USER: v.optional(v.pipe(v.string(), v.minLength(1))),
  CLICKHOUSE_PASSWORD: v.optional(v.string()),
  // A cluster's name as the servers' remote_servers config spells it (an XML element name).
  CLICKHOUSE_CLUSTER: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, 'must be a cluster name from the servers\' remote_servers (letters, digits, _ . -, at most 64)'))),
  LOG_RETAIN_DAYS: v.optional(integerText(1, 3650)),
  PUBLIC_URL: v.optional(v.pipe(v.string(), v.regex(/^https?:\/\/[^\s/?#]+\/?$/, 'must be an http:// or https:// origin without a path, e.g. https://analytics.example.com'))),
  OIDC_ISSUER: v.optional(v.pipe(v.string(), v.regex(/^https?:\/\/[^\s?#]+$/, 'must be an http:// or https:// URL without a query, e.g. https://accounts.google.com'))),
  OIDC_CLIENT_ID: v.optional(v.pipe(v.string(), v.minLength(1))),
  OIDC_CLIENT_SECRET: v.optional(v.pipe(v.string(), v.minLength(1))),
  OIDC_ALLOWED_DOMAINS: v.optional(v.string(), ''),
  OIDC_DEFAULT_ROLE: v.optional(v.picklist(['owner', 'admin', 'analyst', 'viewer']), 'viewer'),
  OIDC_WORKSPACE: v.optional(v.pipe(v.string(), v.minLength(1))),
  SMTP_URL: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^smtps?:\/\/([^\s/?#@]+@)?[^\s/?#@:]+(:\d{1,5})?\/?$/, 'must be smtp://[user:password@]host[:port] or smtps://…, e.g. smtps://user:secret@mail.example.com:465'),
      v.check((text) => URL.canParse(text), 'must be a URL'),
    ),
  ),
  SMTP_FROM: v.optional(
    v.pipe(v.string(), v.maxLength(320, 'must be at most 320 characters'), v.regex(/^([^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'must be an address or Name <address>, e.g. Sightline <reports@example.com>')),
  ),
});

/** Single sign-on (OpenID Connect, docs/people.md "Single sign-on"); undefined when OIDC_ISSUER is unset. */
export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Lower-cased e-mail domains that may sign in; empty: any (only when no workspace takes first sign-ins). */
  allowedDomains: string[];
  defaultRole: 'owner' | 'admin' | 'analyst' | 'viewer';
  /** The slug of the workspace a first sign-in is placed in; undefined: invited (or existing) accounts only. */
  workspace: string | undefined;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Set from the environment; otherwise generated into DATA_DIR/admin-token on first start. */
  adminToken: string | undefined;
  requireApiKey: 'none' | 'tag' | 'require';
  schemaBundlePath: string | undefined;
  schemaMode: 'reject' | 'quarantine';
  /**
   * Proxies in front of the server (TRUST_PROXY): 0 takes the socket's address, N the Nth X-Forwarded-For entry from
   * the right, the address the outermost of them saw (src/http/client-ip.ts).
   */
  trustProxy: number;
  geoipDb: string | undefined;
  /** The largest import file accepted by POST /v1/sites/:siteId/imports, in bytes as uploaded (default 20 GiB). */
  importMaxBytes: number;
  internalIps: string[];
  metricsPublic: boolean;
  allowPrivateWebhookTargets: boolean;
  rateLimitSite: number;
  rateLimitIp: number;
  /**
   * Failed authentications one client address may make per minute, sustained, once its burst is spent; the next is
   * 429 rate_limited (src/access/auth-throttle.ts, docs/deploy.md "Throttling failed authentication").
   */
  authFailuresPerMinute: number;
  /** Failed authentications one client address may make at once, before the per-minute rate applies. */
  authFailureBurst: number;
  /** Open stream-v2 connections per site at most; one more is refused with 429 too_many_streams. */
  eventStreamsPerSite: number;
  /** Per credential (one API key, or the admin token) across all sites, likewise. */
  eventStreamsPerCredential: number;
  /** Per workspace (the sites' tenant, whichever credentials opened them), likewise. */
  eventStreamsPerWorkspace: number;
  /** On the whole server, likewise. */
  eventStreamsTotal: number;
  /**
   * Bytes the server holds for one stream-v2 connection at most (frames its socket has not taken yet); a reader that
   * takes nothing for a heartbeat interval while it is full is closed (docs/events.md, "Caps and slow readers").
   */
  eventStreamBufferBytes: number;
  /** How often an idle stream-v2 connection gets a comment line (15 s; tests shorten it). */
  eventStreamHeartbeatMs: number;
  /**
   * The HTTP server's bounds (docs/deploy.md, "Connection limits"): a connection that has not sent a request's
   * headers within headersTimeoutMs, or its whole request (body included) within requestTimeoutMs, gets 408 and is
   * closed; an idle keep-alive connection is closed after keepAliveTimeoutMs; past maxConnections open connections a
   * new one is closed at once. A response that is still being sent (stream-v2) is bounded by none of them.
   */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; maxConnections: number };
  /** One request body at most (1 MiB, CONTRACT section 2). */
  maxBodyBytes: number;
  /**
   * The event log's synchronous pragma: NORMAL (an acknowledged event survives a crash of the process) or FULL (it
   * also survives a power failure: an fsync per group commit). docs/ingest.md, "Durability".
   */
  synchronous: 'NORMAL' | 'FULL';
  /**
   * How long a read of derived data waits, at most, for the projector (and with ClickHouse, the shipper) to pass what
   * was acknowledged before it; then it answers with what is there, marked projection_lag (READ_WAIT_MS, 2 s).
   */
  readWaitMs: number;
  /** Where group commits run: on the HTTP thread (default) or a writer thread (docs/ingest.md, "Where commits run"). */
  ingestWriter: 'inline' | 'thread';
  /**
   * Where history is shipped (CONTRACT 12, docs/clickhouse.md); undefined (CLICKHOUSE_URL unset) keeps everything in
   * SQLite. The password is given only with a user.
   */
  clickhouse:
    | {
        url: string;
        database: string;
        user: string | undefined;
        password: string | undefined;
        cluster: string | undefined;
        /** LOG_RETAIN_DAYS: shipped events older than this many days leave the SQLite log (docs/clickhouse.md, "Trimming"). */
        logRetainDays?: number;
      }
    | undefined;
  /**
   * The origin people reach the server at (PUBLIC_URL), for links it hands out (invitations, the OpenID Connect
   * redirect_uri); undefined takes the origin of the request.
   */
  publicUrl: string | undefined;
  oidc: OidcConfig | undefined;
  /**
   * Outbound mail (CONTRACT 13, docs/email.md): the SMTP server's URL (credentials in it, percent-encoded) and the
   * From address; undefined (SMTP_URL unset) refuses report and alert settings with 409 smtp_not_configured.
   */
  smtp: { url: string; from: string } | undefined;
  /** Where links in mails point, which have no request to take an origin from: PUBLIC_URL, else http://HOST:PORT. */
  mailLinkBase: string;
}

export class ConfigError extends Error {}

/**
 * Reads the configuration from variables and flags; flags use the variable's name in kebab case (`--data-dir`).
 * @example loadConfig(process.env, { port: '0' })
 */
export function loadConfig(env: Record<string, string | undefined>, flags: Record<string, string | undefined> = {}): Config {
  const input: Record<string, string> = {};
  for (const key of Object.keys(ConfigSchema.entries)) {
    const flag = flags[key.toLowerCase().replaceAll('_', '-')] ?? flags[toCamelCase(key)];
    const value = flag ?? env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const result = v.safeParse(ConfigSchema, input);
  if (!result.success) {
    const problems = result.issues.map((issue) => `${issue.path?.map((item) => String(item.key)).join('.') ?? ''}: ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const parsed = result.output;
  // Node refuses a headers timeout above the request timeout; the message names the variables instead.
  if (parsed.HTTP_HEADERS_TIMEOUT_MS > parsed.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError('invalid configuration: HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)');
  }
  // Streams at their cap would otherwise hold every connection, and nothing else (ingest, /healthz) could connect.
  if (parsed.HTTP_MAX_CONNECTIONS <= parsed.EVENT_STREAMS_TOTAL) {
    throw new ConfigError('invalid configuration: HTTP_MAX_CONNECTIONS: must be greater than EVENT_STREAMS_TOTAL (streams would take every connection)');
  }
  if (parsed.CLICKHOUSE_URL === undefined && (parsed.CLICKHOUSE_USER !== undefined || parsed.CLICKHOUSE_PASSWORD !== undefined || parsed.CLICKHOUSE_CLUSTER !== undefined)) {
    throw new ConfigError('invalid configuration: CLICKHOUSE_URL: must be set when CLICKHOUSE_USER, CLICKHOUSE_PASSWORD or CLICKHOUSE_CLUSTER is');
  }
  // Trimming keeps what ClickHouse holds: without ClickHouse the log is the only copy, so the variable would mislead.
  if (parsed.CLICKHOUSE_URL === undefined && parsed.LOG_RETAIN_DAYS !== undefined) {
    throw new ConfigError('invalid configuration: CLICKHOUSE_URL: must be set when LOG_RETAIN_DAYS is (the SQLite log is trimmed only of what ClickHouse holds)');
  }
  if (parsed.CLICKHOUSE_PASSWORD !== undefined && parsed.CLICKHOUSE_USER === undefined) {
    throw new ConfigError('invalid configuration: CLICKHOUSE_USER: must be set when CLICKHOUSE_PASSWORD is');
  }
  const oidc = oidcConfigOf(parsed);
  if (parsed.SMTP_URL !== undefined && parsed.SMTP_FROM === undefined) {
    throw new ConfigError('invalid configuration: SMTP_FROM: must be set when SMTP_URL is (the From address of every mail)');
  }
  return {
    host: parsed.HOST,
    port: parsed.PORT,
    dataDir: parsed.DATA_DIR,
    adminToken: parsed.ADMIN_TOKEN,
    requireApiKey: parsed.REQUIRE_API_KEY,
    schemaBundlePath: parsed.SCHEMA_BUNDLE_PATH,
    schemaMode: parsed.SCHEMA_MODE,
    trustProxy: parsed.TRUST_PROXY,
    geoipDb: parsed.GEOIP_DB,
    importMaxBytes: parsed.IMPORT_MAX_BYTES,
    internalIps: parsed.INTERNAL_IPS.split(',').map((item) => item.trim()).filter(Boolean),
    metricsPublic: parsed.METRICS_PUBLIC,
    allowPrivateWebhookTargets: parsed.ALLOW_PRIVATE_WEBHOOK_TARGETS,
    rateLimitSite: parsed.RATE_LIMIT_SITE,
    rateLimitIp: parsed.RATE_LIMIT_IP,
    authFailuresPerMinute: parsed.AUTH_FAILURES_PER_MINUTE,
    authFailureBurst: parsed.AUTH_FAILURE_BURST,
    eventStreamsPerSite: parsed.EVENT_STREAMS_PER_SITE,
    eventStreamsPerCredential: parsed.EVENT_STREAMS_PER_CREDENTIAL,
    eventStreamsPerWorkspace: parsed.EVENT_STREAMS_PER_WORKSPACE,
    eventStreamsTotal: parsed.EVENT_STREAMS_TOTAL,
    eventStreamBufferBytes: parsed.EVENT_STREAM_BUFFER_BYTES,
    eventStreamHeartbeatMs: parsed.EVENT_STREAM_HEARTBEAT_MS,
    http: {
      headersTimeoutMs: parsed.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: parsed.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: parsed.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: parsed.HTTP_MAX_CONNECTIONS,
    },
    maxBodyBytes: 1024 * 1024,
    synchronous: parsed.SYNCHRONOUS === 'full' ? 'FULL' : 'NORMAL',
    ingestWriter: parsed.INGEST_WRITER,
    readWaitMs: parsed.READ_WAIT_MS,
    clickhouse:
      parsed.CLICKHOUSE_URL === undefined
        ? undefined
        : { url: parsed.CLICKHOUSE_URL.replace(/\/+$/, ''), database: parsed.CLICKHOUSE_DATABASE, user: parsed.CLICKHOUSE_USER, password: parsed.CLICKHOUSE_PASSWORD, cluster: parsed.CLICKHOUSE_CLUSTER, logRetainDays: parsed.LOG_RETAIN_DAYS },
    publicUrl: parsed.PUBLIC_URL?.replace(/\/+$/, ''),
    oidc,
    smtp: parsed.SMTP_URL === undefined ? undefined : { url: parsed.SMTP_URL, from: parsed.SMTP_FROM! },
    mailLinkBase: (parsed.PUBLIC_URL ?? `http://${parsed.HOST.includes(':') ? `[${parsed.HOST}]` : parsed.HOST}:${parsed.PORT}`).replace(/\/+$/, ''),
  };
}

function oidcConfigOf(parsed: v.InferOutput<typeof ConfigSchema>): OidcConfig | undefined {
  const allowedDomains = parsed.OIDC_ALLOWED_DOMAINS.split(',').map((item) => item.trim().toLowerCase().replace(/^@/, '')).filter(Boolean);
  if (parsed.OIDC_ISSUER === undefined) {
    const stray = (['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_WORKSPACE'] as const).find((name) => parsed[name] !== undefined);
    if (stray || allowedDomains.length > 0) throw new ConfigError(`invalid configuration: OIDC_ISSUER: must be set when ${stray ?? 'OIDC_ALLOWED_DOMAINS'} is`);
    return undefined;
  }
  // Tokens and the client secret travel to the issuer: TLS, but for a provider on this machine.
  const issuerUrl = new URL(parsed.OIDC_ISSUER);
  if (issuerUrl.protocol === 'http:' && !/^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(issuerUrl.hostname)) {
    throw new ConfigError('invalid configuration: OIDC_ISSUER: must be an https:// URL (http:// only on the loopback interface)');
  }
  if (parsed.OIDC_CLIENT_ID === undefined) throw new ConfigError('invalid configuration: OIDC_CLIENT_ID: must be set when OIDC_ISSUER is');
  if (parsed.OIDC_CLIENT_SECRET === undefined) throw new ConfigError('invalid configuration: OIDC_CLIENT_SECRET: must be set when OIDC_ISSUER is');
  // Accounts made at first sign-in from any domain a provider vouches for (any Google account, say) would be open
  // sign-up: a workspace that takes them needs the domains named.
  if (parsed.OIDC_WORKSPACE !== undefined && allowedDomains.length === 0) {
    throw new ConfigError('invalid configuration: OIDC_ALLOWED_DOMAINS: must name the e-mail domains when OIDC_WORKSPACE places first sign-ins in a workspace');
  }
  return {
    issuer: parsed.OIDC_ISSUER,
    clientId: parsed.OIDC_CLIENT_ID,
    clientSecret: parsed.OIDC_CLIENT_SECRET,
    allowedDomains,
    defaultRole: parsed.OIDC_DEFAULT_ROLE,
    workspace: parsed.OIDC_WORKSPACE,
  };
}

function toCamelCase(name: string): string {
  return name.toLowerCase().replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
