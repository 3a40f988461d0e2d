-- API keys of scope 'dav' (CalDAV/CardDAV sign-in). SQLite cannot change a CHECK: the table is rebuilt.
CREATE TABLE api_keys_next (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('agent', 'system', 'sync', 'dav')),
  label TEXT,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
INSERT INTO api_keys_next SELECT id, user_id, key_hash, key_prefix, scope, label, created_at, last_used_at, revoked_at FROM api_keys;
DROP TABLE api_keys;
ALTER TABLE api_keys_next RENAME TO api_keys;
CREATE INDEX api_keys_user ON api_keys(user_id);
