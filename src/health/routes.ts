// GET /healthz: no authentication; answers once the database answers. GET /v1/version: the versions running, for
// the admin token (the UI shows them; an unauthenticated caller learns nothing that helps pick an exploit).
import type { H3 } from 'h3';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { addRoute } from '../http/routes.ts';
import { preparedOnce } from '../db/statements.ts';
import { requireAdminToken } from '../access/resolve-access.ts';
import { needsCredential } from '../http/refusals.ts';
import { runtimeVersions } from '../version.ts';

const statements = preparedOnce((db) => ({ ping: db.prepare('SELECT 1') }));

/** The only answer: an unreachable database is a 500 in the structured envelope. */
export const HealthAnswer = v.strictObject({ status: v.literal('ok') });

/** Sightline's version (semver, package.json's), the Node.js and the SQLite library running it. */
export const VersionAnswer = v.strictObject({ sightline: v.string(), node: v.string(), sqlite: v.string() });

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
  addRoute(app, {
    method: 'GET',
    path: '/version',
    versionedOnly: true,
    refusals: needsCredential,
    summary: 'Versions of Sightline, Node.js and SQLite (admin token)',
    answer: VersionAnswer,
    handler: (event) => {
      requireAdminToken(event, context);
      return runtimeVersions();
    },
  });
}
