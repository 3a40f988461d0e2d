-- Who made each API key: a key never acts above its maker's role. Keys made before this column
-- existed have none, and are bounded by their holder's role alone.
ALTER TABLE api_keys ADD COLUMN created_by TEXT REFERENCES users(id) ON DELETE SET NULL;
