-- Two-factor sign-in with TOTP: the secret sealed with the credential-encryption key (never in clear),
-- confirmed_at NULL while set up but not yet confirmed (2FA is on only once confirmed), last_step the
-- last time step accepted (a code is good once).
CREATE TABLE totp_factors (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  secret_sealed TEXT NOT NULL,
  confirmed_at INTEGER,
  last_step INTEGER NOT NULL DEFAULT -1,
  created_at INTEGER NOT NULL
);

-- Single-use recovery codes, stored as SHA-256 (random 60-bit codes: a fast hash is enough).
CREATE TABLE recovery_codes (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL,
  used_at INTEGER
);
CREATE INDEX recovery_codes_user ON recovery_codes(user_id);

-- Sessions: which client a refresh-token family was issued to (its User-Agent and address), and the
-- SHA-256 of the access token issued with each refresh token, so a session signed out ends its access
-- tokens too (the token itself carries only sub, email, role, iat, exp).
ALTER TABLE refresh_tokens ADD COLUMN client TEXT;
ALTER TABLE refresh_tokens ADD COLUMN address TEXT;
ALTER TABLE refresh_tokens ADD COLUMN access_hash TEXT;
CREATE INDEX refresh_tokens_access ON refresh_tokens(access_hash);
