-- Each full-text index gains an `owner` column: one term per record naming its owner, 'u' and the
-- hex of the owner's id (engine/fts.ts ownerTerm() writes the same). A search ANDs the words with
-- the owners the caller's view may include, so FTS5 intersects the two doclists and ranks only
-- those records: a member with 50 notes no longer pays for bm25 over another member's 100,000
-- matches. The words are searched outside this column only, so no text a user writes or searches
-- reaches it; bm25 weighs it 0. The tables are rebuilt from the base tables (contentless: there
-- is no other copy of the text), the triggers with them; a change of owner re-indexes the record.

DROP TRIGGER notes_fts_insert;
DROP TRIGGER notes_fts_update;
DROP TRIGGER notes_fts_delete;
DROP TABLE notes_fts;
CREATE VIRTUAL TABLE notes_fts USING fts5(
  title, content, owner,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO notes_fts(rowid, title, content, owner)
  SELECT seq, coalesce(title, ''), content, 'u' || hex(user_id) FROM notes;
CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
  INSERT INTO notes_fts(rowid, title, content, owner) VALUES (new.seq, coalesce(new.title, ''), new.content, 'u' || hex(new.user_id));
END;
CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, content, user_id ON notes
WHEN old.title IS NOT new.title OR old.content IS NOT new.content OR old.user_id IS NOT new.user_id BEGIN
  DELETE FROM notes_fts WHERE rowid = old.seq;
  INSERT INTO notes_fts(rowid, title, content, owner) VALUES (new.seq, coalesce(new.title, ''), new.content, 'u' || hex(new.user_id));
END;
CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
  DELETE FROM notes_fts WHERE rowid = old.seq;
END;

DROP TRIGGER contacts_fts_insert;
DROP TRIGGER contacts_fts_update;
DROP TRIGGER contacts_fts_delete;
DROP VIEW contacts_fts_text;
DROP TABLE contacts_fts;
CREATE VIRTUAL TABLE contacts_fts USING fts5(
  name, emails, phones, company, notes, owner,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIEW contacts_fts_text AS
SELECT
  c.seq,
  concat_ws(' ', c.display_name, c.first_name, c.last_name, c.nickname) AS name,
  (SELECT coalesce(group_concat(json_extract(value, '$.address'), ' '), '') FROM json_each(c.emails)) AS emails,
  (SELECT coalesce(group_concat(concat_ws(' ', n, d, substr(d, -10), substr(d, -7)), ' '), '') FROM (
     SELECT json_extract(value, '$.number') AS n,
       replace(replace(replace(replace(replace(replace(json_extract(value, '$.number'), ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', '') AS d
     FROM json_each(c.phones))) AS phones,
  coalesce(c.company, '') AS company,
  coalesce(c.notes, '') AS notes,
  'u' || hex(c.user_id) AS owner
FROM contacts c;
INSERT INTO contacts_fts(rowid, name, emails, phones, company, notes, owner)
  SELECT seq, name, emails, phones, company, notes, owner FROM contacts_fts_text;
CREATE TRIGGER contacts_fts_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contacts_fts(rowid, name, emails, phones, company, notes, owner)
  SELECT seq, name, emails, phones, company, notes, owner FROM contacts_fts_text WHERE seq = new.seq;
END;
CREATE TRIGGER contacts_fts_update AFTER UPDATE OF display_name, first_name, last_name, nickname, emails, phones, company, notes, user_id ON contacts
WHEN old.display_name IS NOT new.display_name OR old.first_name IS NOT new.first_name OR old.last_name IS NOT new.last_name
  OR old.nickname IS NOT new.nickname OR old.emails IS NOT new.emails OR old.phones IS NOT new.phones
  OR old.company IS NOT new.company OR old.notes IS NOT new.notes OR old.user_id IS NOT new.user_id BEGIN
  DELETE FROM contacts_fts WHERE rowid = old.seq;
  INSERT INTO contacts_fts(rowid, name, emails, phones, company, notes, owner)
  SELECT seq, name, emails, phones, company, notes, owner FROM contacts_fts_text WHERE seq = new.seq;
END;
CREATE TRIGGER contacts_fts_delete AFTER DELETE ON contacts BEGIN
  DELETE FROM contacts_fts WHERE rowid = old.seq;
END;

DROP TRIGGER events_fts_insert;
DROP TRIGGER events_fts_update;
DROP TRIGGER events_fts_delete;
DROP TABLE events_fts;
CREATE VIRTUAL TABLE events_fts USING fts5(
  title, description, owner,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO events_fts(rowid, title, description, owner)
  SELECT seq, title, coalesce(description, ''), 'u' || hex(user_id) FROM events;
CREATE TRIGGER events_fts_insert AFTER INSERT ON events BEGIN
  INSERT INTO events_fts(rowid, title, description, owner) VALUES (new.seq, new.title, coalesce(new.description, ''), 'u' || hex(new.user_id));
END;
CREATE TRIGGER events_fts_update AFTER UPDATE OF title, description, user_id ON events
WHEN old.title IS NOT new.title OR old.description IS NOT new.description OR old.user_id IS NOT new.user_id BEGIN
  DELETE FROM events_fts WHERE rowid = old.seq;
  INSERT INTO events_fts(rowid, title, description, owner) VALUES (new.seq, new.title, coalesce(new.description, ''), 'u' || hex(new.user_id));
END;
CREATE TRIGGER events_fts_delete AFTER DELETE ON events BEGIN
  DELETE FROM events_fts WHERE rowid = old.seq;
END;

DROP TRIGGER tasks_fts_insert;
DROP TRIGGER tasks_fts_update;
DROP TRIGGER tasks_fts_delete;
DROP TABLE tasks_fts;
CREATE VIRTUAL TABLE tasks_fts USING fts5(
  title, description, owner,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO tasks_fts(rowid, title, description, owner)
  SELECT seq, title, coalesce(description, ''), 'u' || hex(user_id) FROM tasks;
CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks BEGIN
  INSERT INTO tasks_fts(rowid, title, description, owner) VALUES (new.seq, new.title, coalesce(new.description, ''), 'u' || hex(new.user_id));
END;
CREATE TRIGGER tasks_fts_update AFTER UPDATE OF title, description, user_id ON tasks
WHEN old.title IS NOT new.title OR old.description IS NOT new.description OR old.user_id IS NOT new.user_id BEGIN
  DELETE FROM tasks_fts WHERE rowid = old.seq;
  INSERT INTO tasks_fts(rowid, title, description, owner) VALUES (new.seq, new.title, coalesce(new.description, ''), 'u' || hex(new.user_id));
END;
CREATE TRIGGER tasks_fts_delete AFTER DELETE ON tasks BEGIN
  DELETE FROM tasks_fts WHERE rowid = old.seq;
END;
