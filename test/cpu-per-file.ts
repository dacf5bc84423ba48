// With vitest.cpu.config.ts (npm run test:cpu): appends one line per test file to $CPU_PER_FILE (default
// /tmp/sightline-cpu-per-file.tsv): the file, its seconds of wall clock, and its fork's CPU seconds, its own (threads
// included) and its children's (servers, CLIs, chromium and clickhouse-server, counted once they exit). The suite is
// CPU-bound on 2 cores: this says where its CPU goes. Under load CPU seconds inflate, so compare runs alike.
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';

const output = process.env.CPU_PER_FILE ?? '/tmp/sightline-cpu-per-file.tsv';
/** utime + stime and cutime + cstime of this process, in seconds (clock ticks of 1/100 s). */
function cpuSeconds(): { own: number; children: number } {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return { own: (Number(fields[11]) + Number(fields[12])) / 100, children: (Number(fields[13]) + Number(fields[14])) / 100 };
}

let start = cpuSeconds();
let startedAt = Date.now();
beforeAll(() => {
  start = cpuSeconds();
  startedAt = Date.now();
});
afterAll(() => {
  const end = cpuSeconds();
  const line = [expect.getState().testPath, ((Date.now() - startedAt) / 1000).toFixed(1), (end.own - start.own).toFixed(1), (end.children - start.children).toFixed(1)];
  appendFileSync(output, `${line.join('\t')}\n`);
});
