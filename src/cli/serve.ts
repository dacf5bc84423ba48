// `sightline serve`: the HTTP server; every configuration variable can also be given as a flag.
import { defineCommand } from 'citty';
import { consola } from 'consola';
import { loadConfig } from '../config.ts';
import { startServer, stopOnSignals } from '../server.ts';

export const serveCommand = defineCommand({
  meta: { name: 'serve', description: 'Serve the HTTP API (flags override the environment variables of the same name)' },
  args: {
    host: { type: 'string', description: 'Listen address (HOST, default 127.0.0.1)' },
    port: { type: 'string', description: 'Listen port (PORT, default 8787; 0 picks a free one)' },
    'data-dir': { type: 'string', description: 'Data directory (DATA_DIR, default ./data)' },
    'require-api-key': { type: 'string', description: 'none, tag or require (REQUIRE_API_KEY)' },
    'schema-bundle-path': { type: 'string', description: 'Tracking plan bundle (SCHEMA_BUNDLE_PATH)' },
    'schema-mode': { type: 'string', description: 'reject or quarantine (SCHEMA_MODE)' },
    'trust-proxy': { type: 'string', description: 'false, true or the number of proxies in front of the server (TRUST_PROXY)' },
    'geoip-db': { type: 'string', description: 'City-level .mmdb file (GEOIP_DB)' },
    'internal-ips': { type: 'string', description: 'Comma-separated IPs/CIDRs tagged internal (INTERNAL_IPS)' },
    'metrics-public': { type: 'string', description: 'true or false (METRICS_PUBLIC)' },
    'rate-limit-site': { type: 'string', description: 'Events/s per site (RATE_LIMIT_SITE)' },
    'rate-limit-ip': { type: 'string', description: 'Requests/s per client IP (RATE_LIMIT_IP)' },
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
      consola.error(error instanceof Error ? error.message : error);
      process.exit(1);
    }
  },
});
