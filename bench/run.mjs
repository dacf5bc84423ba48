// npm run bench -- <name>: runs one benchmark (ingest, reports) or all of them, printing figures.
const benches = { ingest: './ingest.mjs' };
const requested = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const names = requested.length > 0 ? requested : Object.keys(benches);
for (const name of names) {
  if (!benches[name]) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
  const { run } = await import(benches[name]);
  await run(process.argv.slice(2));
}
