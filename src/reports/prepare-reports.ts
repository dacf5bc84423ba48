// Once per app start: the cursor secret exists (created here, outside any report's read snapshot, so reading a
// cursor never has to write).
import type { AppContext } from '../context.ts';
import { insertStateValueIfMissing } from './queries/state-rows.ts';

export function prepareReports(context: AppContext): void {
  insertStateValueIfMissing(context.db, 'cursor_secret', context.random.bytes(32));
}
