// npm run bench -- <name>: runs one benchmark (ingest, reports, analysis) or all of them, printing figures.
const benches = { ingest: './ingest.mjs', reports: './reports.mjs', analysis: './analysis.mjs' };
const requested = process.argv.slice(2).filter((arg) => /^[a-z]+$/.test(arg));
const names = requested.length > 0 ? requested : Object.keys(benches);
for (const name of names) {
  if (!benches[name]) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
  const { run } = await import(benches[name]);
  await run(process.argv.slice(2));
}
