-- DNS plugin: provider accounts, zones, records (authoritative records and the
-- mirror of proxy zones' provider records), DDNS history.

CREATE TABLE dns_provider_accounts (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  provider TEXT NOT NULL,
  label TEXT NOT NULL,
  -- AES-256-GCM sealed JSON of the credentials (api.secrets); never returned.
  credentials TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_tested_at TEXT,
  connected INTEGER
);
CREATE INDEX dns_provider_accounts_user ON dns_provider_accounts (user_id, created_at);

CREATE TABLE dns_zones (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  -- Lower-cased apex; unique across users: one server answers for all of them.
  zone TEXT NOT NULL UNIQUE,
  mode TEXT NOT NULL CHECK (mode IN ('authoritative', 'proxy')),
  provider_account_id TEXT REFERENCES dns_provider_accounts (id),
  provider_zone_id TEXT,
  serial INTEGER NOT NULL DEFAULT 1,
  propagation_status TEXT NOT NULL DEFAULT 'pending' CHECK (propagation_status IN ('pending', 'verified', 'failed')),
  ns_found TEXT NOT NULL DEFAULT '[]',
  ns_checked_at TEXT,
  ddns_enabled INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX dns_zones_user ON dns_zones (user_id, zone);

CREATE TABLE dns_records (
  zone_id TEXT NOT NULL REFERENCES dns_zones (id) ON DELETE CASCADE,
  -- UUID for authoritative zones; the provider's own id for proxy zones.
  id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  type TEXT NOT NULL,
  name TEXT NOT NULL,
  content TEXT NOT NULL,
  ttl INTEGER NOT NULL,
  priority INTEGER,
  proxied INTEGER NOT NULL DEFAULT 0,
  ddns INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (zone_id, id)
);
CREATE INDEX dns_records_name ON dns_records (zone_id, name);

-- Every public-IP check (for ip-type's 30-day window and the status).
CREATE TABLE dns_ddns_checks (
  checked_at TEXT NOT NULL,
  ip TEXT,
  error TEXT
);
CREATE INDEX dns_ddns_checks_at ON dns_ddns_checks (checked_at);

-- IP changes and what they updated; zones_updated is JSON [{zone_id, user_id, zone, records}].
CREATE TABLE dns_ddns_log (
  id TEXT PRIMARY KEY,
  previous_ip TEXT,
  new_ip TEXT NOT NULL,
  detected_at TEXT NOT NULL,
  zones_updated TEXT NOT NULL DEFAULT '[]',
  error TEXT
);
CREATE INDEX dns_ddns_log_at ON dns_ddns_log (detected_at);
