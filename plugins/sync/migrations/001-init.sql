-- Sync connectors (issue 14, item 3): what to pull, the link of every remote object to its record, and the run log.
CREATE TABLE sync_connectors (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('carddav', 'caldav', 'google_keep')),
  label TEXT NOT NULL,
  url TEXT,
  username TEXT,
  -- api.secrets ciphertext, never the password itself
  password_enc TEXT,
  schedule TEXT,
  -- the creator could reach private networks (an admin): kept so scheduled runs apply the same rule
  allow_private INTEGER NOT NULL DEFAULT 0,
  -- false while the owner is on the free tier: scheduled runs pause
  active INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX sync_connectors_user ON sync_connectors (user_id);

-- One remote object (href; `part` tells an event's overridden occurrences apart) → one record.
CREATE TABLE sync_links (
  connector_id TEXT NOT NULL REFERENCES sync_connectors (id) ON DELETE CASCADE,
  href TEXT NOT NULL,
  part TEXT NOT NULL DEFAULT '',
  collection TEXT NOT NULL DEFAULT '',
  resource TEXT NOT NULL,
  record_id TEXT NOT NULL,
  etag TEXT,
  PRIMARY KEY (connector_id, href, part)
);

-- The sync-token each collection last answered (RFC 6578).
CREATE TABLE sync_collections (
  connector_id TEXT NOT NULL REFERENCES sync_connectors (id) ON DELETE CASCADE,
  href TEXT NOT NULL,
  sync_token TEXT,
  PRIMARY KEY (connector_id, href)
);

CREATE TABLE sync_runs (
  id TEXT PRIMARY KEY,
  connector_id TEXT NOT NULL REFERENCES sync_connectors (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  trigger TEXT NOT NULL,
  status TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  created INTEGER NOT NULL DEFAULT 0,
  updated INTEGER NOT NULL DEFAULT 0,
  deleted INTEGER NOT NULL DEFAULT 0,
  unchanged INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  error TEXT
);
CREATE INDEX sync_runs_connector ON sync_runs (connector_id, started_at);
