// A guessing attack on a real server (the bundle, as `sightline serve` runs it, default throttle settings): one
// address sends wrong UI sign-ins, admin bearers and API keys as fast as it can, and the script counts per minute
// how many guesses were actually checked (a 401) rather than refused unread (429). Meanwhile another address signs in
// with the right token. Figures, never a pass/fail (docs/deploy.md, "Throttling failed authentication").
//   node build/build.mjs --if-stale && node bench/auth-guessing.mjs [--seconds 125] [--workers 4]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const option = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const seconds = option('seconds', 125);
const workers = option('workers', 4);
const adminToken = 'bench-admin-token-0123456789abcdef';
const attacker = '203.0.113.66';
const bystander = '198.51.100.7';

const dataDir = mkdtempSync(join(tmpdir(), 'sightline-guessing-'));
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

const json = { 'content-type': 'application/json' };
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

console.log(`guessing attack: ${seconds} s, ${workers} concurrent workers, one address, UI sign-in / admin bearer / API key in turn`);
console.log(`sent ${sent} guesses (${Math.round(sent / seconds)}/s); in the first 10 s ${sentInFirstTenSeconds}, of which ${checkedInFirstTenSeconds} checked`);
minutes.forEach(([checked, refused, other], minute) => {
  console.log(`minute ${minute + 1}: ${checked} guesses checked (401), ${refused} refused unread (429)${other ? `, ${other} other` : ''}`);
});
console.log(`the right token from the attacking address after the attack: ${attackerRight}`);
console.log(`the right token from another address during the attack: ${[...new Set(bystanderAnswers)].join(', ')} (${bystanderAnswers.length} sign-ins)`);

server.kill('SIGTERM');
await new Promise((resolve) => server.once('exit', resolve));
rmSync(dataDir, { recursive: true, force: true });
