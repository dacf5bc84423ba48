// The event types an endpoint may subscribe to, and the payload every delivery carries (docs/integrations.md).

/** A bridge action was recorded (POST …/integrations/bridge/actions); a replay announces nothing. */
export const bridgeActionRecorded = 'bridge.action_recorded';
/** A purchase event was projected (the projector's batch, once per event; bots are left out). */
export const eventPurchase = 'event.purchase';
/**
 * A traffic alert fired (src/alerts/, docs/email.md "Alerts"): sent to the endpoint the alert names, whatever the
 * endpoint subscribes to (naming it is the subscription), signed and retried like every delivery.
 */
export const alertTriggered = 'alert.triggered';
/** POST …/endpoints/:id/test: sent whatever the endpoint subscribes to, once, never retried. */
export const webhookTest = 'webhook.test';

export const subscribableEventTypes = [bridgeActionRecorded, eventPurchase] as const;
export type SubscribableEventType = (typeof subscribableEventTypes)[number];

export const payloadSchema = 'sightline.webhook@1';

export interface WebhookPayload {
  schema: typeof payloadSchema;
  id: string;
  type: string;
  created_at: string;
  workspace: { id: string; slug: string };
  data: Record<string, unknown>;
}

/** The exact JSON text signed and sent. @example toPayloadText({ id, type, createdAt, workspaceId, workspaceSlug, data }) */
export function toPayloadText(message: { id: string; type: string; createdAt: string; workspaceId: string; workspaceSlug: string; data: Record<string, unknown> }): string {
  const payload: WebhookPayload = {
    schema: payloadSchema,
    id: message.id,
    type: message.type,
    created_at: message.createdAt,
    workspace: { id: message.workspaceId, slug: message.workspaceSlug },
    data: message.data,
  };
  return JSON.stringify(payload);
}
