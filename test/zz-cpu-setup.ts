import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
const ticks = () => { const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' '); return { own: (+f[11]! + +f[12]!) / 100, children: (+f[13]! + +f[14]!) / 100 }; };
let start = ticks(); let t0 = Date.now();
beforeAll(() => { start = ticks(); t0 = Date.now(); });
afterAll(() => { const end = ticks(); appendFileSync('/tmp/cpuprof/cpu.tsv', `${expect.getState().testPath}\t${((Date.now() - t0) / 1000).toFixed(1)}\t${(end.own - start.own).toFixed(1)}\t${(end.children - start.children).toFixed(1)}\n`); });
