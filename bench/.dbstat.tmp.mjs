import Database from '/work/main/node_modules/better-sqlite3/lib/index.js';
const dir = process.argv[2];
for (const file of ['sightline.db', 'events.db']) {
  const db = new Database(`${dir}/${file}`, { readonly: true });
  const rows = db.prepare("SELECT name, sum(pgsize) AS bytes, count(*) AS pages FROM dbstat GROUP BY name ORDER BY bytes DESC").all();
  const total = rows.reduce((s, r) => s + r.bytes, 0);
  console.log(file, (total / 2 ** 20).toFixed(1), 'MiB');
  for (const r of rows.slice(0, 14)) console.log('  ', r.name.padEnd(34), (r.bytes / 2 ** 20).toFixed(1).padStart(8), 'MiB', (r.bytes / 1e6).toFixed(1), 'B/event');
  db.close();
}
