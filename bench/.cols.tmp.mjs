import Database from 'better-sqlite3';
const db = new Database(process.argv[2] + '/events.db', { readonly: true });
const cols = db.prepare("SELECT name FROM pragma_table_info('events')").all().map(r => r.name);
const sel = cols.map(c => `avg(length(CAST(${c} AS BLOB))) AS ${c}`).join(', ');
const r = db.prepare(`SELECT ${sel} FROM (SELECT * FROM events LIMIT 100000)`).get();
let total = 0; for (const [k, v] of Object.entries(r)) { total += v ?? 0; console.log(k.padEnd(18), (v ?? 0).toFixed(1)); }
console.log('sum', total.toFixed(1));
console.log(db.prepare('SELECT raw FROM events LIMIT 2').all());
