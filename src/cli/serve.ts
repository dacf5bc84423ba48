// `sightline serve`: the HTTP server; every configuration variable can also be given as a flag.
import { defineCommand } from 'citty';
import { loadConfig } from '../config.ts';
import { startServer, stopOnSignals } from '../server.ts';
import { printError } from './terminal.ts';

export const serveCommand = defineCommand({
  meta: { name: 'serve', description: 'Serve the HTTP API (flags override the environment variables of the same name)' },
  // Every variable of the README's configuration table, as a kebab-case flag (test/cli/serve.test.ts keeps them in step).
  args: {
    host: { type: 'string', description: 'Listen address (HOST, default 127.0.0.1)' },
    port: { type: 'string', description: 'Listen port (PORT, default 8787; 0 picks a free one)' },
    'data-dir': { type: 'string', description: 'Data directory (DATA_DIR, default ./data)' },
    'admin-token': { type: 'string', description: 'The admin token (ADMIN_TOKEN; prefer the variable: a flag shows in ps). Default: generated into DATA_DIR/admin-token' },
    'require-api-key': { type: 'string', description: 'none, tag or require (REQUIRE_API_KEY)' },
    'schema-bundle-path': { type: 'string', description: 'Tracking plan bundle (SCHEMA_BUNDLE_PATH)' },
    'schema-mode': { type: 'string', description: 'reject or quarantine (SCHEMA_MODE)' },
    'trust-proxy': { type: 'string', description: 'false, true or the number of proxies in front of the server (TRUST_PROXY)' },
    'geoip-db': { type: 'string', description: 'City-level .mmdb file (GEOIP_DB)' },
    'internal-ips': { type: 'string', description: 'Comma-separated IPs/CIDRs tagged internal (INTERNAL_IPS)' },
    'metrics-public': { type: 'string', description: 'true or false (METRICS_PUBLIC)' },
    'allow-private-webhook-targets': { type: 'string', description: 'true or false (ALLOW_PRIVATE_WEBHOOK_TARGETS)' },
    'rate-limit-site': { type: 'string', description: 'Events/s per site (RATE_LIMIT_SITE)' },
    'rate-limit-ip': { type: 'string', description: 'Requests/s per client IP (RATE_LIMIT_IP)' },
    'event-streams-per-site': { type: 'string', description: 'Open stream-v2 connections per site (EVENT_STREAMS_PER_SITE)' },
    'event-streams-per-credential': { type: 'string', description: 'Open stream-v2 connections per credential (EVENT_STREAMS_PER_CREDENTIAL)' },
    'event-streams-per-workspace': { type: 'string', description: 'Open stream-v2 connections per workspace (EVENT_STREAMS_PER_WORKSPACE)' },
    'event-streams-total': { type: 'string', description: 'Open stream-v2 connections on the server (EVENT_STREAMS_TOTAL)' },
    'auth-failures-per-minute': { type: 'string', description: 'Failed authentications per client address per minute once the burst is spent (AUTH_FAILURES_PER_MINUTE)' },
    'auth-failure-burst': { type: 'string', description: 'Failed authentications one client address may make at once (AUTH_FAILURE_BURST)' },
    'http-headers-timeout-ms': { type: 'string', description: 'Time a connection has to send a request\'s headers (HTTP_HEADERS_TIMEOUT_MS)' },
    'http-request-timeout-ms': { type: 'string', description: 'Time a connection has to send a whole request (HTTP_REQUEST_TIMEOUT_MS)' },
    'http-keep-alive-timeout-ms': { type: 'string', description: 'Idle time before an answered connection is closed (HTTP_KEEP_ALIVE_TIMEOUT_MS)' },
    'http-max-connections': { type: 'string', description: 'Open connections at most (HTTP_MAX_CONNECTIONS)' },
    'event-stream-buffer-bytes': { type: 'string', description: 'Bytes held for one stream-v2 client at most (EVENT_STREAM_BUFFER_BYTES)' },
    'event-stream-heartbeat-ms': { type: 'string', description: 'Interval of the stream-v2 heartbeat (EVENT_STREAM_HEARTBEAT_MS)' },
    'import-max-bytes': { type: 'string', description: 'Largest import upload accepted, in bytes (IMPORT_MAX_BYTES, default 20 GiB)' },
    'read-wait-ms': { type: 'string', description: 'How long a report waits for the projector before it answers projection_lag, 0 to 60000 (READ_WAIT_MS, default 2000)' },
    synchronous: { type: 'string', description: 'normal or full (SYNCHRONOUS)' },
    'ingest-writer': { type: 'string', description: 'inline or thread (INGEST_WRITER)' },
    'clickhouse-url': { type: 'string', description: 'ClickHouse HTTP interface to ship history to, e.g. http://127.0.0.1:8123 (CLICKHOUSE_URL; unset: SQLite only)' },
    'clickhouse-database': { type: 'string', description: 'ClickHouse database (CLICKHOUSE_DATABASE, default sightline)' },
    'clickhouse-user': { type: 'string', description: 'ClickHouse user (CLICKHOUSE_USER)' },
    'clickhouse-password': { type: 'string', description: 'ClickHouse password (CLICKHOUSE_PASSWORD; prefer the variable: a flag shows in ps)' },
    'clickhouse-cluster': { type: 'string', description: 'ClickHouse cluster from remote_servers: local tables per shard plus Distributed ones (CLICKHOUSE_CLUSTER)' },
    'log-retain-days': { type: 'string', description: 'With ClickHouse: shipped events older than this many days leave the SQLite log, 1 to 3650 (LOG_RETAIN_DAYS; unset: never trim)' },
    'public-url': { type: 'string', description: 'The origin people reach the server at, for links (invitations, mails) and the SSO redirect_uri (PUBLIC_URL; default: the request\'s origin, in mails http://HOST:PORT)' },
    'oidc-issuer': { type: 'string', description: 'OpenID Connect issuer URL; set: single sign-on is on (OIDC_ISSUER)' },
    'oidc-client-id': { type: 'string', description: 'OpenID Connect client id (OIDC_CLIENT_ID)' },
    'oidc-client-secret': { type: 'string', description: 'OpenID Connect client secret (OIDC_CLIENT_SECRET; prefer the variable: a flag shows in ps)' },
    'oidc-allowed-domains': { type: 'string', description: 'Comma-separated e-mail domains that may sign in with SSO (OIDC_ALLOWED_DOMAINS)' },
    'oidc-default-role': { type: 'string', description: 'Role of an account made at its first SSO sign-in: owner, admin, analyst or viewer (OIDC_DEFAULT_ROLE, default viewer)' },
    'oidc-workspace': { type: 'string', description: 'Slug of the workspace a first SSO sign-in is placed in (OIDC_WORKSPACE; unset: invited accounts only)' },
    'smtp-url': { type: 'string', description: 'SMTP server for reports, alerts and invitations, smtp:// or smtps://user:password@host:port (SMTP_URL; prefer the variable: a flag shows in ps)' },
    'smtp-from': { type: 'string', description: 'From address of every mail, e.g. "Sightline <reports@example.com>" (SMTP_FROM; needed with SMTP_URL)' },
  },
  run: async ({ args }) => {
    try {
      const flags: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(args)) if (typeof value === 'string') flags[name] = value;
      const running = startServer(loadConfig(process.env, flags));
      // Before the ready line can be read, so that no signal finds the process without its handlers.
      stopOnSignals(running);
      await running;
    } catch (error) {
      printError(error instanceof Error ? error.message : String(error));
      process.exit(1);
    }
  },
});
