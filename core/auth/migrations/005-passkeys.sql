-- Passkeys (WebAuthn credentials): the public key the authenticator made (COSE, not a secret), its
-- signature counter (a counter that goes back means a cloned authenticator), the transports the
-- browser reported, and the name the member gave it. credential_id is the authenticator's id
-- (base64url), unique across users: an assertion names it and it alone says whose it is.
CREATE TABLE webauthn_credentials (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  credential_id TEXT NOT NULL UNIQUE,
  public_key BLOB NOT NULL,
  counter INTEGER NOT NULL DEFAULT 0,
  transports TEXT NOT NULL DEFAULT '[]',
  name TEXT NOT NULL,
  backed_up INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX webauthn_credentials_user ON webauthn_credentials(user_id);
