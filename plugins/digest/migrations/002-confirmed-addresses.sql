-- Where a digest email may go: the user's own address, or one confirmed through a link sent to it.
-- token_hash: SHA-256 of the link's single-use token (null once used); the address is lower-cased.
CREATE TABLE digest_addresses (
  user_id TEXT NOT NULL,
  address TEXT NOT NULL,
  token_hash TEXT UNIQUE,
  requested_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  confirmed_at TEXT,
  PRIMARY KEY (user_id, address)
);

-- When each link was asked for (a day's worth per user): at most a few links a day, whatever the address.
CREATE TABLE digest_link_requests (
  user_id TEXT NOT NULL,
  requested_at TEXT NOT NULL
);
CREATE INDEX digest_link_requests_user ON digest_link_requests (user_id, requested_at);

-- Deliveries counted per UTC day (at most 48 a day per user).
ALTER TABLE digest_settings ADD COLUMN deliveries_day TEXT;
ALTER TABLE digest_settings ADD COLUMN deliveries_count INTEGER NOT NULL DEFAULT 0;
