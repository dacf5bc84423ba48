import { it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { startTestServer } from './_setup.ts';
it('start cost', async () => {
  for (let i = 0; i < 3; i++) { const s = await startTestServer(); await s.close(); }
  const session = new Session(); session.connect();
  await session.post('Profiler.enable'); await session.post('Profiler.start');
  for (let i = 0; i < 15; i++) { const s = await startTestServer(); await s.request('GET', '/healthz'); await s.close(); }
  const { profile } = await session.post('Profiler.stop');
  writeFileSync('/tmp/start.cpuprofile', JSON.stringify(profile));
}, 120000);
