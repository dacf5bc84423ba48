-- Sightline's whole schema. It is applied at start inside one transaction per version and recorded in
-- PRAGMA user_version. Evolution only appends: add a new "-- @version N" section at the end; never edit a
-- section that has shipped (see the spec's "Storage and wire").

-- @version 1: workspaces, sites, API keys, audit log

CREATE TABLE workspaces (
  id          TEXT PRIMARY KEY,           -- UUID
  slug        TEXT NOT NULL UNIQUE,       -- ^[a-z][a-z0-9-]{0,63}$, never renamed
  name        TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

CREATE TABLE sites (
  id            TEXT PRIMARY KEY,         -- ^[A-Za-z0-9_-]{1,64}$, also the legacy ingest bearer
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  name          TEXT NOT NULL,
  created_at    TEXT NOT NULL
);
CREATE INDEX sites_by_workspace ON sites (workspace_id, created_at);

CREATE TABLE api_keys (
  id            TEXT PRIMARY KEY,         -- UUID
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id),
  label         TEXT NOT NULL,
  scopes        TEXT NOT NULL,            -- JSON array of scope names
  key_hash      BLOB NOT NULL UNIQUE,     -- SHA-256 of the plaintext; the plaintext is never stored
  created_at    TEXT NOT NULL,
  last_used_at  TEXT,
  revoked_at    TEXT
);
CREATE INDEX api_keys_by_workspace ON api_keys (workspace_id, created_at);

CREATE TABLE audit_log (
  id            TEXT PRIMARY KEY,         -- UUID
  workspace_id  TEXT NOT NULL,
  actor_kind    TEXT NOT NULL CHECK (actor_kind IN ('admin', 'apiKey', 'system')),
  actor_id      TEXT,
  action        TEXT NOT NULL,
  target        TEXT,
  metadata      TEXT NOT NULL DEFAULT '{}',
  ts            TEXT NOT NULL             -- strictly increasing per workspace, so an ISO cursor never skips a row
);
CREATE INDEX audit_log_by_workspace_ts ON audit_log (workspace_id, ts);

-- The audit log is append-only at the storage level, whoever holds the database handle.
CREATE TRIGGER audit_log_refuses_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_refuses_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
