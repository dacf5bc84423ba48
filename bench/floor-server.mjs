// The floor of a durable collector: plain node:http that parses the body, stores each event's text with a dedup
// check (a random 52-bit key, under a unique index) in a WAL SQLite file by group commit (every request of one event-loop turn in
// one transaction), and answers 202 only after the commit. No authentication, validation, enrichment or other
// index: what a collector that keeps the ack promise cannot go below on this machine.
import Database from 'better-sqlite3';
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const db = new Database(join(mkdtempSync(join(tmpdir(), 'sightline-floor-')), 'floor.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE events (seq INTEGER PRIMARY KEY, dedup_key INTEGER NOT NULL, raw TEXT NOT NULL); CREATE UNIQUE INDEX events_by_dedup_key ON events (dedup_key)');
const exists = db.prepare('SELECT 1 FROM events WHERE dedup_key = ?');
const insert = db.prepare('INSERT INTO events (dedup_key, raw) VALUES (?, ?)');
const commit = db.transaction((group) => {
  for (const item of group) {
    if (exists.get(item.key) === undefined) insert.run(item.key, item.raw);
  }
});
let waiting = [];
const flush = () => {
  const group = waiting;
  waiting = [];
  commit.immediate(group);
  for (const item of group) {
    item.response.writeHead(202, { 'content-type': 'application/json' });
    item.response.end('{"accepted":1,"bots":0,"duplicates":0,"quarantined":0,"dropped":0}');
  }
};

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    const event = JSON.parse(raw);
    const key = parseInt(String(event.id).replaceAll('-', '').slice(0, 13), 16);
    if (waiting.length === 0) setImmediate(flush);
    waiting.push({ key, raw, response });
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
