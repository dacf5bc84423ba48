// GET /metrics: Prometheus text; needs the admin token unless METRICS_PUBLIC is true.
import type { H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { requireAdminToken } from '../access/resolve-access.ts';
import { needsCredential } from '../http/refusals.ts';
import { addRoute } from '../http/routes.ts';
import type { AppMetrics } from './app-metrics.ts';

export function mountMetrics(app: H3, context: AppContext, metrics: AppMetrics): void {
  addRoute(app, {
    method: 'GET',
    path: '/metrics',
    refusals: needsCredential,
    summary: 'Prometheus metrics',
    produces: 'text/plain; version=0.0.4',
    handler: (event) => {
      if (!context.config.metricsPublic) requireAdminToken(event, context);
      return new Response(metrics.registry.render(), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' } });
    },
  });
}
