// Where the links the server hands out point (invitations, the OpenID Connect redirect_uri): PUBLIC_URL when set,
// else this server as the request reached it (requestOrigin honours X-Forwarded-Host/-Proto behind TRUST_PROXY).
import type { H3Event } from 'h3';
import type { AppContext } from '../context.ts';
import { requestOrigin } from '../ui/session.ts';

export function publicBaseOf(event: H3Event, context: AppContext): string {
  return context.config.publicUrl ?? requestOrigin(event, context) ?? new URL(event.req.url).origin;
}
