// GET /healthz: no authentication; answers once the database answers.
import type { H3 } from 'h3';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { addRoute } from '../http/routes.ts';
import { preparedOnce } from '../db/statements.ts';

const statements = preparedOnce((db) => ({ ping: db.prepare('SELECT 1') }));

/** The only answer: an unreachable database is a 500 in the structured envelope. */
export const HealthAnswer = v.strictObject({ status: v.literal('ok') });

export function mountHealth(app: H3, context: AppContext): void {
  addRoute(app, {
    method: 'GET',
    path: '/healthz',
    refusals: {},
    summary: 'Liveness and database check',
    auth: 'none',
    answer: HealthAnswer,
    handler: () => {
      statements(context.db).ping.get();
      return { status: 'ok' as const };
    },
  });
}
