// The answer schemas of the administration endpoints (workspaces, sites, keys, audit), defined once: they type the
// handlers and are published at GET /v1/schemas and in GET /v1/openapi.json (src/openapi/).
import * as v from 'valibot';
import { allScopes } from '../access/caller.ts';

const Uuid = v.pipe(v.string(), v.uuid());
const IsoTime = v.pipe(v.string(), v.isoTimestamp());
const Name = v.pipe(v.string(), v.minLength(1));
const Slug = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,63}$/));
const SiteIdText = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/));
/** The opaque cursor of the next page, null on the last one. */
const NextCursor = v.nullable(v.pipe(v.string(), v.minLength(1)));

export const WorkspaceAnswer = v.strictObject({ id: Uuid, name: Name, slug: Slug, created_at: IsoTime, updated_at: IsoTime });
/** GET and PATCH /workspaces/:slug: the workspace and its settings (require_2fa: docs/people.md). */
export const WorkspaceWithSettingsAnswer = v.strictObject({ ...WorkspaceAnswer.entries, require_2fa: v.boolean() });
/** POST /workspaces answers exactly the four fields the spec shows. */
export const CreatedWorkspaceAnswer = v.strictObject({ id: Uuid, name: Name, slug: Slug, created_at: IsoTime });
export const WorkspaceListAnswer = v.strictObject({ workspaces: v.array(WorkspaceAnswer), next_cursor: NextCursor });

/** A site and its settings: cookieless visitors, and retention_days (whole UTC days of events kept, null for forever). */
export const SiteAnswer = v.strictObject({
  id: SiteIdText,
  name: Name,
  created_at: IsoTime,
  cookieless: v.boolean(),
  retention_days: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3650))),
});
export const SiteListAnswer = v.strictObject({ sites: v.array(SiteAnswer), next_cursor: NextCursor });

const apiKeyEntries = {
  id: Uuid,
  workspace_id: Uuid,
  label: Name,
  scopes: v.pipe(v.array(v.picklist(allScopes)), v.minLength(1)),
  created_at: IsoTime,
  last_used_at: v.nullable(IsoTime),
  revoked_at: v.nullable(IsoTime),
};
/** A key record: list and revoke answers (never a plaintext or a hash). */
export const ApiKeyAnswer = v.strictObject(apiKeyEntries);
/** The create answer: the record plus the plaintext, shown once, and the warning that says so. */
export const CreatedApiKeyAnswer = v.strictObject({
  ...apiKeyEntries,
  plaintext: v.pipe(v.string(), v.regex(/^sk_[a-z][a-z0-9-]{0,63}_[A-Za-z0-9_-]{32}$/)),
  warning: v.string(),
});
export const KeyListAnswer = v.strictObject({ keys: v.array(ApiKeyAnswer), next_cursor: NextCursor });

export const AuditEntryAnswer = v.strictObject({
  id: Uuid,
  workspace_id: Uuid,
  actor_kind: v.picklist(['admin', 'apiKey', 'user', 'system']),
  actor_id: v.nullable(Uuid),
  action: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_.-]*$/)),
  target: v.nullable(v.string()),
  /** Free-form per action; consumers tolerate unknown keys. */
  metadata: v.record(v.string(), v.unknown()),
  ts: IsoTime,
});
/** next_cursor is the ts of the last entry when older entries exist. */
export const AuditPageAnswer = v.strictObject({ entries: v.array(AuditEntryAnswer), next_cursor: v.nullable(IsoTime) });
