-- Certificates Hearth issues itself by ACME DNS-01 (wildcards, names in zones Hearth or the
-- DNS-provider integration serves), loaded into Caddy; and the ACME account key. Keys encrypted.
CREATE TABLE proxy_certificates (
  domain TEXT PRIMARY KEY,
  certificate TEXT,
  private_key TEXT,
  not_after TEXT,
  -- The last issuance failure, in words; null once a certificate is issued.
  error TEXT,
  updated_at TEXT NOT NULL
);

CREATE TABLE proxy_acme_account (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  account_key TEXT NOT NULL
);
