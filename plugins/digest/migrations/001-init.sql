-- Digest settings per user (issue 14, item 4).
CREATE TABLE digest_settings (
  user_id TEXT PRIMARY KEY,
  schedule TEXT,
  period TEXT NOT NULL DEFAULT 'day' CHECK (period IN ('day', 'week')),
  deliver TEXT NOT NULL CHECK (deliver IN ('email', 'webhook')),
  target TEXT NOT NULL,
  -- api.secrets ciphertext of the webhook signing secret
  webhook_secret_enc TEXT,
  -- the user could reach private networks when the target was set (an admin)
  allow_private INTEGER NOT NULL DEFAULT 0,
  -- false while the user is on the free tier: scheduled deliveries pause
  active INTEGER NOT NULL DEFAULT 1,
  last_delivered_at TEXT,
  last_status TEXT,
  last_error TEXT,
  updated_at TEXT NOT NULL
);
