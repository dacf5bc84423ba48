import { mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';
export default mergeConfig(base, { test: { setupFiles: ['test/zz-cpu-setup.ts'] } });
