-- The DNS-provider integration of the proxy (DNS-01 for wildcard and LAN-only certificates): one row.
CREATE TABLE proxy_dns_provider (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  provider TEXT NOT NULL,
  -- AES-256-GCM under the instance key; never returned.
  credentials TEXT NOT NULL,
  zone TEXT,
  last_tested_at TEXT,
  connected INTEGER,
  updated_at TEXT NOT NULL
);
