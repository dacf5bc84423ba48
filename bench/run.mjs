// npm run bench -- <name>: runs one benchmark (ingest, reports, analysis, clickhouse, auth, mail, import, behaviour, dashboard) or all of them, printing figures.
const benches = { ingest: './ingest.mjs', reports: './reports.mjs', analysis: './analysis.mjs', clickhouse: './clickhouse.mjs', auth: './auth-guessing.mjs', mail: './mail.mjs', import: './import.mjs', behaviour: './behaviour.mjs', dashboard: './filter-click.mjs' };
// Options that take a value (their value is not a benchmark's name).
const valued = new Set(['--only', '--events', '--rounds', '--seconds', '--against', '--batch', '--rows', '--ga4-bytes', '--profile', '--data', '--days', '--visitors', '--sqlite-events', '--backlog', '--runs', '--shards', '--load-until']);
const requested = process.argv.slice(2).filter((arg, index, args) => /^[a-z]+$/.test(arg) && !valued.has(args[index - 1]));
const names = requested.length > 0 ? requested : Object.keys(benches);
for (const name of names) {
  if (!benches[name]) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
  const { run } = await import(benches[name]);
  await run(process.argv.slice(2));
}
