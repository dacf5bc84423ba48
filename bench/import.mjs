// npm run bench -- import [--rows N] [--only umami|goatcounter|ga4] [--ga4-bytes B]: events per second imported by
// `sightline import` (the bundled CLI) for each raw format from a generated file of N rows (default 1,000,000; the
// issue's 10 million with --rows 10000000), printed per phase: checking (the file read, checked and time-sorted), storing (the checked events in time order:
// group commits of 5,000 events) and projecting (the projector, run between the stored batches), then stored and
// stored+projected rates; the command's peak RSS; beside them a floor measured in the same run (reading the file line
// by line in Node, no parsing) and a durable floor (bench/import-floor.mjs: parsed, stored, counted per day); then the export's speed (ndjson to a file). --ga4-bytes B (2e9, 2g, 500m) instead
// generates a GA4 NDJSON file of at least B bytes and imports only that (the 2 GB memory figure). --spread generates
// rows in no time order (visitors scattered over the 29 days), as a file concatenated from several exports may be.
// --cpu-prof DIR writes the import command's CPU profile there. Figures, never a pass/fail; `uptime`'s load average
// is printed before and after, and the import's CPU seconds beside its wall time. --skip-export leaves the export out.
import { execFileSync, spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './harness.mjs';

const siteId = 'bench';
const dayMs = 86_400_000;
const launcher = join(root, 'bin', 'sightline');

function option(args, name, fallback) {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : fallback;
}

const hex = (n, width) => n.toString(16).padStart(width, '0');
const uuidOf = (n) => `${hex(Math.floor(n / 2 ** 32), 8)}-0000-4000-8000-${hex(n % 2 ** 32, 12)}`;
const paths = ['/', '/pricing', '/blog/a', '/blog/b', '/docs', '/signup', '/about', '/contact'];
const countries = ['US', 'DE', 'FR', 'GB', 'NL', 'IN', 'BR', 'JP'];
const countryNames = ['United States', 'Germany', 'France', 'United Kingdom', 'Netherlands', 'India', 'Brazil', 'Japan'];
const referrers = ['', '', 'google.com', 'news.ycombinator.com', 'duckduckgo.com'];

/** Row n: visitor n/8 (8 events each, a minute apart), spread over the 30 days before `endMs`. */
function facts(n, endMs, rows, spread = false) {
  const visitor = Math.floor(n / 8);
  const visitors = Math.ceil(rows / 8);
  // --spread: the visitors in a scattered order (a prime stride), so the file's rows are not in time order.
  const place = spread ? (visitor * 7919) % visitors : visitor % visitors;
  // Modulo: a file generated to a size (--ga4-bytes) may hold more rows than estimated; none may be in the future.
  const ts = endMs - 30 * dayMs + Math.floor((place / visitors) * 29 * dayMs) + (n % 8) * 60_000;
  return { visitor, ts, path: paths[(n * 7 + visitor) % paths.length], country: visitor % countries.length, referrer: n % 8 === 0 ? referrers[visitor % referrers.length] : '', custom: n % 8 === 7 };
}

const generators = {
  umami: {
    format: 'umami-csv',
    header: 'website_id,session_id,visit_id,event_id,hostname,browser,os,device,screen,language,country,subdivision1,subdivision2,city,url_path,url_query,referrer_path,referrer_query,referrer_domain,page_title,event_type,event_name,created_at\n',
    row: (n, f) => {
      const at = new Date(f.ts).toISOString().replace('T', ' ').slice(0, 19);
      return `w,${uuidOf(f.visitor)},v,${uuidOf(n)},shop.example,chrome,Windows 10,desktop,1920x1080,en-US,${countries[f.country]},,,,${f.path},,${f.referrer ? '/' : ''},,${f.referrer},Title,${f.custom ? 2 : 1},${f.custom ? 'signup' : ''},${at}\n`;
    },
  },
  goatcounter: {
    format: 'goatcounter-csv',
    header: '2Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date\n',
    row: (n, f) => `${f.custom ? 'signup' : f.path},Title,${f.custom},,Firefox 121,Linux,${f.visitor},0,${f.referrer},${f.referrer ? 'h' : ''},"1920,1080,1",${countries[f.country]},${n % 8 === 0},${new Date(f.ts).toISOString()}\n`,
  },
  ga4: {
    format: 'ga4-bigquery',
    header: '',
    row: (n, f) =>
      `${JSON.stringify({
        event_date: new Date(f.ts).toISOString().slice(0, 10).replaceAll('-', ''),
        event_timestamp: `${f.ts}${String(n % 1000).padStart(3, '0')}`,
        event_name: f.custom ? 'sign_up' : 'page_view',
        event_params: [
          { key: 'page_location', value: { string_value: `https://shop.example${f.path}` } },
          ...(f.referrer ? [{ key: 'page_referrer', value: { string_value: `https://${f.referrer}/` } }] : []),
          { key: 'ga_session_id', value: { int_value: String(Math.floor(f.ts / 1000)) } },
          { key: 'page_title', value: { string_value: 'Title' } },
        ],
        user_pseudo_id: `${f.visitor}.1700000000`,
        user_id: null,
        device: { category: 'desktop', operating_system: 'Windows', web_info: { browser: 'Chrome', hostname: 'shop.example' } },
        geo: { country: countryNames[f.country], region: 'Region', city: 'City' },
        traffic_source: { name: '(direct)', medium: '(none)', source: '(direct)' },
      })}\n`,
  },
};

/** Writes the file a chunk at a time (constant memory); stops at `rows` rows or, with `bytes`, once past `bytes`. */
async function generate(path, generator, rows, endMs, bytes, spread) {
  const out = createWriteStream(path);
  let size = 0;
  let chunk = generator.header;
  let n = 0;
  const total = bytes ? Number.MAX_SAFE_INTEGER : rows;
  const estimated = bytes ? Math.ceil(bytes / 700) : rows;
  for (; n < total && (!bytes || size < bytes); n++) {
    chunk += generator.row(n, facts(n, endMs, estimated, spread));
    if (chunk.length > 1 << 20) {
      size += chunk.length;
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  return n;
}

/** The launcher's shebang (`env -S VAR=x node --flag …`): its environment and node's flags, as a user's run gets them. */
function launcherFlags() {
  const words = readFileSync(launcher, 'utf8').split('\n', 1)[0].split(/\s+/);
  const at = words.indexOf('node');
  const env = Object.fromEntries(words.slice(0, at).filter((word) => /^[A-Z_]+=/.test(word)).map((word) => word.split('=')));
  return { env, flags: words.slice(at + 1) };
}

/**
 * Runs the CLI as a user does (with the launcher's V8 and malloc flags) under /usr/bin/time: its JSON output, wall
 * seconds, CPU seconds (user + system) and peak RSS (MiB). `nodeArgs`: more flags for node (--cpu-prof).
 */
function timedCli(args, env, nodeArgs = []) {
  const { env: launcherEnv, flags } = launcherFlags();
  const result = spawnSync('/usr/bin/time', ['-f', '%e %M %U %S', process.execPath, ...flags, ...nodeArgs, launcher, ...args], { env: { ...process.env, ...launcherEnv, ...env }, encoding: 'utf8', maxBuffer: 1 << 26 });
  const [seconds, kib, user, system] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  if (result.status !== 0) throw new Error(`sightline ${args.join(' ')}: exit ${result.status}\n${result.stdout.slice(0, 2000)}\n${result.stderr.slice(0, 2000)}`);
  return { stdout: result.stdout, seconds, cpuSeconds: user + system, rssMiB: kib / 1024 };
}

function prepareDataDir(scratch, name) {
  const dataDir = join(scratch, `data-${name}`);
  const env = { DATA_DIR: dataDir };
  execFileSync(process.execPath, [launcher, 'workspace', 'create', '--name', 'Bench', '--slug', 'bench'], { env: { ...process.env, ...env } });
  execFileSync(process.execPath, [launcher, 'site', 'create', '--workspace', 'bench', '--id', siteId, '--name', 'Bench'], { env: { ...process.env, ...env } });
  return env;
}

/** The floor: the file read and split into lines in Node, nothing parsed (seconds). */
async function readFloor(path) {
  const started = performance.now();
  let lines = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    for (let index = chunk.indexOf(10); index >= 0; index = chunk.indexOf(10, index + 1)) lines++;
  }
  return { seconds: (performance.now() - started) / 1000, lines };
}

/** The durable floor (bench/import-floor.mjs) on the same file, in a process of its own: its JSON figures. */
function importFloor(format, file) {
  const result = spawnSync(process.execPath, [join(root, 'bench', 'import-floor.mjs'), format, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (result.status !== 0) throw new Error(`import floor: exit ${result.status}\n${result.stderr.slice(0, 2000)}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1));
}

/** 2g, 500m, 2e9 → bytes. */
function parseBytes(text) {
  const match = /^(\d+(?:\.\d+)?(?:e\d+)?)([kmg]?)$/i.exec(text);
  if (!match) throw new Error(`--ga4-bytes: not a size: ${text}`);
  return Math.round(Number(match[1]) * { '': 1, k: 1e3, m: 1e6, g: 1e9 }[match[2].toLowerCase()]);
}

const load = () => loadavg().map((value) => value.toFixed(2)).join(', ');

const fixed = (value, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export async function run(args) {
  execFileSync(process.execPath, [join(root, 'build', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  const rows = Number(option(args, '--rows', '1000000'));
  const ga4Bytes = option(args, '--ga4-bytes', undefined);
  const profileDir = option(args, '--cpu-prof', undefined);
  const spread = args.includes('--spread');
  const only = ga4Bytes ? ['ga4'] : (option(args, '--only', undefined)?.split(',') ?? Object.keys(generators));
  const scratch = mkdtempSync(join(tmpdir(), 'sightline-bench-import-'));
  const endMs = Math.floor(Date.now() / dayMs) * dayMs;
  console.log(`import bench: load average ${load()} (1, 5, 15 min) at start; rows ${spread ? 'spread over 29 days in no time order (--spread)' : 'in time order'}`);
  try {
    for (const name of only) {
      const generator = generators[name];
      const file = join(scratch, `${name}.${name === 'ga4' ? 'ndjson' : 'csv'}`);
      const generated = await generate(file, generator, rows, endMs, ga4Bytes ? parseBytes(ga4Bytes) : undefined, spread);
      const fileMiB = statSync(file).size / 2 ** 20;
      const floor = await readFloor(file);
      const durableFloor = importFloor(generator.format, file);
      const env = prepareDataDir(scratch, name);
      const imported = timedCli(['import', generator.format, '--site', siteId, file, '--json'], env, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
      const answer = JSON.parse(imported.stdout);
      const events = answer.events_imported;
      const { checking_s: checking, storing_s: storing, projecting_s: projecting } = answer.seconds;
      const rate = (seconds) => `${fixed(events / seconds)} events/s`;
      const cpu = answer.cpu_seconds;
      const perCpu = (seconds) => `${fixed(seconds, 1)} CPU-s, ${fixed(events / seconds)} events/CPU-s`;
      console.log(
        `import ${generator.format}: ${fixed(generated)} rows (${fixed(fileMiB)} MiB), ${fixed(events)} events, in ${fixed(imported.seconds, 1)} s wall, ${fixed(imported.cpuSeconds, 1)} CPU-s (${fixed(events / imported.cpuSeconds)} events per CPU-second, all phases and start-up); peak RSS ${fixed(imported.rssMiB)} MiB\n` +
          `  checking ${fixed(checking, 1)} s (${rate(checking)}), storing ${fixed(storing, 1)} s (${rate(storing)}), projecting ${fixed(projecting, 1)} s (${rate(projecting)})\n` +
          `  stored (checked + stored): ${rate(checking + storing)}; stored and projected: ${rate(checking + storing + projecting)}\n` +
          // cpu_seconds: from the CLI of this round on (an older build, measured as a baseline, has none).
          (cpu
            ? `  CPU: checking ${perCpu(cpu.checking_s)}; storing ${perCpu(cpu.storing_s)}; projecting ${perCpu(cpu.projecting_s)}\n` +
              `  CPU: stored ${perCpu(cpu.checking_s + cpu.storing_s)}; stored and projected ${perCpu(cpu.checking_s + cpu.storing_s + cpu.projecting_s)}\n`
            : '') +
          `  floor: the file read line by line in Node: ${fixed(floor.seconds, 2)} s (${fixed(floor.lines / floor.seconds)} lines/s, ${fixed(fileMiB / floor.seconds)} MiB/s)\n` +
          `  floor: parsed, ids, stored with a unique index, counted per day (bench/import-floor.mjs): stored ${fixed(durableFloor.stored_s, 1)} s (${fixed(durableFloor.rows / durableFloor.stored_s)} events/s), ` +
          `stored and projected ${fixed(durableFloor.projected_s, 1)} s (${fixed(durableFloor.rows / durableFloor.projected_s)} events/s), ${fixed(durableFloor.cpu_s, 1)} CPU-s (${fixed(durableFloor.rows / durableFloor.cpu_s)} events/CPU-s), RSS ${fixed(durableFloor.rss_mib)} MiB; ` +
          `Sightline ÷ floor, stored and projected, wall: ${fixed((checking + storing + projecting) / durableFloor.projected_s, 1)}×`,
      );
      rmSync(file, { force: true });
      if (args.includes('--skip-export')) {
        rmSync(env.DATA_DIR, { recursive: true, force: true });
        continue;
      }
      const output = join(scratch, `${name}-export.ndjson`);
      const from = new Date(endMs - 31 * dayMs).toISOString().slice(0, 10);
      const to = new Date(endMs).toISOString().slice(0, 10);
      const exported = timedCli(['export', '--site', siteId, '--from', from, '--to', to, '--output', output], env);
      const exportMiB = statSync(output).size / 2 ** 20;
      console.log(
        `export ndjson: ${fixed(answer.events_imported)} events (${fixed(exportMiB)} MiB) in ${fixed(exported.seconds, 1)} s = ` +
          `${fixed(answer.events_imported / exported.seconds)} events/s, ${fixed(exportMiB / exported.seconds)} MiB/s; peak RSS ${fixed(exported.rssMiB)} MiB`,
      );
      rmSync(output, { force: true });
      rmSync(env.DATA_DIR, { recursive: true, force: true });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    console.log(`import bench: load average ${load()} at end`);
  }
}
