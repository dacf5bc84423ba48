// The admin UI's types (its .js files use them through JSDoc `@import`): the API's answers by name, taken from the
// generated api-answers.d.ts (the server's own schemas), and the shapes the UI's modules share.
import type { ComponentChildren } from 'preact';
import type { Answers } from './api-answers.js';

export type { Answers };

/** A catalog key: "GET /v1/sites/{siteId}/reports/summary-v2". */
export type SchemaKey = keyof Answers;

// ── Answers by name ──────────────────────────────────────────────────────────────────────────────────────────────────

/** The token sign-in's answer (POST /v1/ui/session), also GET's when signed in: the admin token or an API key. */
export type TokenSession = Answers['POST /v1/ui/session'];
export type SessionAnswer = Answers['GET /v1/ui/session'];
/** A person signed in with a password (or SSO): what GET /v1/me and POST /v1/auth/login answer. */
export type Me = Answers['GET /v1/me'];
export type UserSession = Me & { kind: 'user' };
export type Role = Me['workspaces'][number]['role'];
/** Signed in: with a token, or as a person. */
export type SignedInSession = TokenSession | UserSession;
/** The session the UI runs under: signed in, or a shared dashboard's token. */
export type Session = SignedInSession | { kind: 'share'; token: string };
export type Member = Answers['GET /v1/workspaces/{slug}/members']['members'][number];
export type Invitation = Answers['GET /v1/workspaces/{slug}/invitations']['invitations'][number];
export type UserSessionRow = Answers['GET /v1/me/sessions']['sessions'][number];

/** What the UI needs of a workspace: the session's, or one of GET /workspaces. */
export type WorkspaceRef = { id: string; slug: string; name: string };
export type Workspace = Answers['GET /v1/workspaces']['workspaces'][number];
export type Site = Answers['GET /v1/workspaces/{slug}/sites']['sites'][number];
export type ApiKey = Answers['GET /v1/workspaces/{slug}/keys']['keys'][number];
export type CreatedKey = Answers['POST /v1/workspaces/{slug}/keys'];
export type ShareLink = Answers['GET /v1/sites/{siteId}/share-links']['share_links'][number];
export type CreatedShareLink = Answers['POST /v1/sites/{siteId}/share-links'];
export type AuditEntry = Answers['GET /v1/workspaces/{slug}/audit']['entries'][number];
export type DlqEvent = Answers['GET /v1/sites/{siteId}/dlq']['events'][number];
export type SpendEntry = Answers['GET /v1/workspaces/{slug}/spend']['entries'][number];
export type Endpoint = Answers['GET /v1/workspaces/{slug}/integrations/endpoints']['endpoints'][number];
export type CreatedEndpoint = Answers['POST /v1/workspaces/{slug}/integrations/endpoints'];
export type Delivery = Answers['GET /v1/workspaces/{slug}/integrations/endpoints/{id}/deliveries']['deliveries'][number];
export type ListedEvent = Answers['GET /v1/sites/{siteId}/events/list-v2']['data']['events'][number];
export type TimelineEvent = Answers['GET /v1/sites/{siteId}/users/{userId}/timeline']['events'][number];
export type ConsentAnswer = Answers['GET /v1/v2/sites/{siteId}/consent-banner/config'];
export type BannerConfig = ConsentAnswer['config'];
export type BannerCategory = BannerConfig['categories'][number];
export type FunnelAnswer = Answers['POST /v1/workspaces/{slug}/analysis/funnels-v2'];
export type FunnelStep = FunnelAnswer['data']['steps'][number];
export type CorrelationAnswer = Answers['POST /v1/workspaces/{slug}/analysis/funnels-v2/correlation'];
export type ExplanationAnswer = Answers['POST /v1/workspaces/{slug}/analysis/funnels-v2/explanation'];
export type AttributionAnswer = Answers['GET /v1/workspaces/{slug}/attribution/results'];
export type RoiCompareAnswer = Answers['GET /v1/workspaces/{slug}/roi/compare'];
export type SummaryData = Answers['GET /v1/sites/{siteId}/reports/summary-v2']['data'];
export type Money = { currency: string; amount: string };

/** The V2 reports of a site the dashboard reads (GET /v1/sites/{siteId}/reports/<name>). */
export type ReportName = 'summary-v2' | 'pages-v2' | 'sources-v2' | 'campaigns-v2' | 'breakdown-v2' | 'props-v2' | 'goals-v2' | 'dashboard-v2';
/** The events endpoints of a site the explorer reads (GET /v1/sites/{siteId}/events/<name>). */
export type EventsEndpoint = 'overview-v2' | 'activity-v2' | 'list-v2';

// ── Shapes the modules share ─────────────────────────────────────────────────────────────────────────────────────────

/** One problem of a refused request: a JSON Pointer (or '') and why. */
export type Detail = { path: string; message: string };
/** One refused line of a CSV file (the flat envelope's rows). */
export type RowProblem = { line: number; message: string };

/** The JSON Schema subset GET /v1/schemas publishes, as validate.js reads it. */
export type JsonSchema =
  | boolean
  | {
      type?: string | string[];
      properties?: Record<string, JsonSchema>;
      required?: string[];
      additionalProperties?: JsonSchema;
      items?: JsonSchema;
      enum?: unknown[];
      const?: unknown;
      anyOf?: JsonSchema[];
      oneOf?: JsonSchema[];
      allOf?: JsonSchema[];
      pattern?: string;
      minLength?: number;
      maxLength?: number;
      minimum?: number;
      maximum?: number;
      minItems?: number;
      maxItems?: number;
    };

/** A value loaded for a component (use-answer.js). */
export type Loaded<T> = { status: 'loading' } | { status: 'ready'; data: T } | { status: 'error'; error: string };

/** A column of a table (table.js): its header, the value of a row (what the CSV export writes), and its text. */
export type Column<Row> = {
  label: string;
  value: (row: Row) => unknown;
  /** The value as shown; absent: String(value) ('(none)' or nothing for null). column() builds it from a format. */
  text?: (row: Row) => string;
  className?: string;
  /** The cell's controls (buttons) instead of the value's text. */
  render?: (row: Row) => ComponentChildren;
};
