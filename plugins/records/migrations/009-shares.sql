-- Shares: one member lets another read or write one of their collections. A collection is a
-- calendar (its name), the address book (target ''), a task list (its name) or one note (its id).
-- Lists scope their query by the caller's own rows OR the collections shared with them: the
-- caller's grants are read by records_shares_with, the sharees of a record by the unique index.
CREATE TABLE records_shares (
  id TEXT PRIMARY KEY,
  owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  with_user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('calendar', 'addressbook', 'tasklist', 'note')),
  target TEXT NOT NULL,
  access TEXT NOT NULL CHECK (access IN ('read', 'write')),
  created_at TEXT NOT NULL,
  UNIQUE (owner_id, kind, target, with_user_id)
);
CREATE INDEX records_shares_with ON records_shares(with_user_id, kind, owner_id, target);
