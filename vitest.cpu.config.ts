// npm run test:cpu: the suite as vitest.config.ts runs it, each file's CPU written down (test/cpu-per-file.ts).
import { mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

export default mergeConfig(base, { test: { setupFiles: ['test/cpu-per-file.ts'] } });
