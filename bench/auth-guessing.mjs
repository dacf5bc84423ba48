// Guessing attacks on a real server (the bundle, as `sightline serve` runs it, default throttle settings: a burst of
// 20 failures, then 10 a minute, per key). Figures, never a pass/fail (docs/deploy.md, "Throttling failed
// authentication"; docs/people.md, "Sign-in protection").
//
// tokens: one address sends wrong UI sign-ins, admin bearers and API keys as fast as it can, and the script counts
//   per minute how many guesses were actually checked (a 401) rather than refused unread (429). Meanwhile another
//   address signs in with the right token.
// people: the password hash's time (median of 20, the server's scrypt parameters), then four password-guessing
//   attacks on POST /v1/auth/login, run side by side on one server for the same window, counting per minute the
//   attempts that got through to a password check (401 invalid_credentials) and those refused before it (429): one
//   account from one address, one account from a new address each attempt, a new account (e-mail) each attempt from
//   one address, and, for comparison, a new account from a new address each attempt (nothing to throttle per key:
//   bounded by the hashing only). Addresses come from X-Forwarded-For, which the server trusts here (TRUST_PROXY=1,
//   as behind one proxy).
//   node build/build.mjs --if-stale && node bench/auth-guessing.mjs [--only tokens|people] [--seconds 60] [--workers 4]
//   npm run bench -- auth [--only people] [--seconds 60]
import { execFileSync, spawn } from 'node:child_process';
import { scrypt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const adminToken = 'bench-admin-token-0123456789abcdef';
const json = { 'content-type': 'application/json' };

function optionOf(args, name, fallback) {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : fallback;
}

async function startServer(dataDir) {
  const server = spawn(process.execPath, ['bin/sightline', 'serve'], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, TRUST_PROXY: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let output = '';
    server.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]);
    });
    server.once('exit', (code) => reject(new Error(`server exited (${code}): ${output}`)));
  });
  const stop = async () => {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  };
  return { url, stop };
}

async function tokens(seconds, workers) {
  const attacker = '203.0.113.66';
  const bystander = '198.51.100.7';
  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-guessing-'));
  const { url, stop } = await startServer(dataDir);
  const guesses = [
    (n) => fetch(`${url}/v1/ui/session`, { method: 'POST', headers: { ...json, 'x-forwarded-for': attacker }, body: JSON.stringify({ token: `guess-${n}-0000000000000000` }) }),
    (n) => fetch(`${url}/v1/workspaces`, { headers: { authorization: `Bearer guess-${n}-0000000000000000`, 'x-forwarded-for': attacker } }),
    (n) => fetch(`${url}/v1/workspaces/acme/sites`, { headers: { authorization: `Bearer sk_acme_${String(n).padStart(43, 'A')}`, 'x-forwarded-for': attacker } }),
  ];
  const rightSignIn = (address) =>
    fetch(`${url}/v1/ui/session`, { method: 'POST', headers: { ...json, 'x-forwarded-for': address }, body: JSON.stringify({ token: adminToken }) });

  const started = Date.now();
  const deadline = started + seconds * 1000;
  /** Per elapsed minute: [checked (401), refused unread (429), other]. */
  const minutes = [];
  let sent = 0;
  let checkedInFirstTenSeconds = 0;
  let sentInFirstTenSeconds = 0;
  const bystanderAnswers = [];

  async function attack() {
    while (Date.now() < deadline) {
      const n = sent++;
      const response = await guesses[n % guesses.length](n);
      await response.arrayBuffer();
      const elapsed = Date.now() - started;
      if (elapsed < 10_000) {
        sentInFirstTenSeconds++;
        if (response.status === 401) checkedInFirstTenSeconds++;
      }
      const minute = Math.floor(elapsed / 60_000);
      const counts = (minutes[minute] ??= [0, 0, 0]);
      counts[response.status === 401 ? 0 : response.status === 429 ? 1 : 2]++;
    }
  }

  async function bystanderSignsIn() {
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      bystanderAnswers.push((await rightSignIn(bystander)).status);
    }
  }

  await Promise.all([...Array.from({ length: workers }, attack), bystanderSignsIn()]);
  const attackerRight = (await rightSignIn(attacker)).status;

  console.log(`guessing attack on tokens: ${seconds} s, ${workers} concurrent workers, one address, UI sign-in / admin bearer / API key in turn`);
  console.log(`sent ${sent} guesses (${Math.round(sent / seconds)}/s); in the first 10 s ${sentInFirstTenSeconds}, of which ${checkedInFirstTenSeconds} checked`);
  minutes.forEach(([checked, refused, other], minute) => {
    console.log(`minute ${minute + 1}: ${checked} guesses checked (401), ${refused} refused unread (429)${other ? `, ${other} other` : ''}`);
  });
  console.log(`the right token from the attacking address after the attack: ${attackerRight}`);
  console.log(`the right token from another address during the attack: ${[...new Set(bystanderAnswers)].join(', ')} (${bystanderAnswers.length} sign-ins)`);
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/** The server's own scrypt parameters, read from its source so the figure follows them. */
function scryptParametersOfServer() {
  const source = readFileSync(fileURLToPath(new URL('../src/users/password.ts', import.meta.url)), 'utf8');
  const match = /scryptParameters = \{ N: 2 \*\* (\d+), r: (\d+), p: (\d+) \}/.exec(source);
  if (!match) throw new Error('scryptParameters not found in src/users/password.ts');
  return { N: 2 ** Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
}

async function hashTimes(count) {
  const parameters = scryptParametersOfServer();
  const times = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    await new Promise((resolve, reject) =>
      scrypt('correct horse battery staple', `salt-${i}-0123456`, 32, { ...parameters, maxmem: 256 * parameters.N * parameters.r }, (error) => (error ? reject(error) : resolve())),
    );
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { parameters, median: (times[count / 2 - 1] + times[count / 2]) / 2, min: times[0], max: times[count - 1] };
}

async function people(seconds, workers) {
  const hash = await hashTimes(20);
  const { N, r, p } = hash.parameters;
  console.log(`scrypt (N=2^${Math.log2(N)}, r=${r}, p=${p}): median ${hash.median.toFixed(1)} ms per hash over 20 (min ${hash.min.toFixed(1)}, max ${hash.max.toFixed(1)})`);

  const dataDir = mkdtempSync(join(tmpdir(), 'sightline-guessing-'));
  // The targeted accounts exist (made as an operator makes them); the rotating e-mails mostly do not, which the
  // server throttles exactly alike (an unknown e-mail has an account key of its own: docs/people.md).
  const { url, stop } = await startServer(dataDir);
  for (const email of ['one@example.com', 'spread@example.com']) {
    execFileSync(process.execPath, ['bin/sightline', 'user', 'create', '--email', email, '--json'], { env: { ...process.env, DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'inherit'] });
  }
  const signIn = (email, address) =>
    fetch(`${url}/v1/auth/login`, { method: 'POST', headers: { ...json, 'x-forwarded-for': address }, body: JSON.stringify({ email, password: 'a wrong password, again' }) });
  const addressOf = (n, prefix) => `${prefix}.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
  const attacks = {
    'one account, one address': (n) => signIn('one@example.com', '203.0.113.9'),
    'one account, a new address each attempt': (n) => signIn('spread@example.com', addressOf(n, '10.1')),
    'a new account each attempt, one address': (n) => signIn(`user-${n}@example.com`, '198.51.100.9'),
    'a new account from a new address each attempt (not throttled per key)': (n) => signIn(`other-${n}@example.com`, addressOf(n, '10.2')),
  };
  const started = Date.now();
  const deadline = started + seconds * 1000;
  const results = Object.fromEntries(Object.keys(attacks).map((name) => [name, { sent: 0, checked: 0, refused: 0, other: 0 }]));
  const worker = async (name) => {
    const result = results[name];
    while (Date.now() < deadline) {
      const response = await attacks[name](result.sent++);
      await response.arrayBuffer();
      if (response.status === 401) result.checked++;
      else if (response.status === 429) result.refused++;
      else result.other++;
    }
  };
  await Promise.all(Object.keys(attacks).flatMap((name) => Array.from({ length: workers }, () => worker(name))));
  const elapsedMinutes = (Date.now() - started) / 60_000;
  console.log(`password guessing on POST /v1/auth/login: ${seconds} s, the four attacks side by side, ${workers} concurrent workers each`);
  for (const [name, { sent, checked, refused, other }] of Object.entries(results)) {
    // A window shorter than a minute is extrapolated, which overstates a throttled line while its burst lasts.
    const perMinute = seconds >= 60 ? `${checked} in the first minute` : `${Math.round(checked / elapsedMinutes)} a minute extrapolated from ${seconds} s (the burst may not be spent yet: run 60 s)`;
    console.log(`${name}: ${sent} sent, ${checked} got through to a password check (401), ${refused} refused before it (429)${other ? `, ${other} other` : ''}: ${perMinute}`);
  }
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
}

export async function run(args) {
  const only = optionOf(args, 'only', undefined);
  const seconds = Number(optionOf(args, 'seconds', only === 'tokens' ? '125' : '60'));
  const workers = Number(optionOf(args, 'workers', '4'));
  if (only === undefined || only === 'people') await people(seconds, workers);
  if (only === undefined || only === 'tokens') await tokens(seconds, workers);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await run(process.argv.slice(2));
