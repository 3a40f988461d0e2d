-- Proxy routes: Hearth's database is the source of truth; Caddy gets the whole set pushed.
CREATE TABLE proxy_routes (
  id TEXT PRIMARY KEY,
  domain TEXT NOT NULL UNIQUE,
  target TEXT NOT NULL,
  ssl INTEGER NOT NULL DEFAULT 0,
  enabled INTEGER NOT NULL DEFAULT 1,
  -- Why Caddy refused this route at the last push (null: served or disabled).
  error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
