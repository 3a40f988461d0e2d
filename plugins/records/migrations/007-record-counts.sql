-- Totals of the plain listings without counting (issue 11, scale): at 1,000,000 notes a
-- count(*) over the covering index costs 54-90 ms, paid by the first listing after every write.
-- One row per user, resource and state (in the trash or not, archived or not), kept by triggers
-- in the same transaction as the write itself, so a rolled-back write never moves a counter.
-- Lists whose filters are only these states (GET /notes, ?archived=, ?only_deleted=,
-- ?include_deleted=, and the same for contacts) read their total here; any other filter
-- (tag, search, pinned, source, company) still counts. Events are not kept: their listings
-- always hide the overrides of a series in the trash, which no per-state counter can answer.
CREATE TABLE records_counts (
  user_id TEXT NOT NULL,
  resource TEXT NOT NULL,
  deleted INTEGER NOT NULL,
  archived INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (user_id, resource, deleted, archived)
) WITHOUT ROWID;

INSERT INTO records_counts (user_id, resource, deleted, archived, n)
SELECT user_id, 'notes', deleted_at IS NOT NULL, archived, count(*) FROM notes GROUP BY 1, 3, 4;
INSERT INTO records_counts (user_id, resource, deleted, archived, n)
SELECT user_id, 'contacts', deleted_at IS NOT NULL, 0, count(*) FROM contacts GROUP BY 1, 3;

CREATE TRIGGER notes_count_insert AFTER INSERT ON notes BEGIN
  INSERT INTO records_counts (user_id, resource, deleted, archived, n)
  VALUES (NEW.user_id, 'notes', NEW.deleted_at IS NOT NULL, NEW.archived, 1)
  ON CONFLICT (user_id, resource, deleted, archived) DO UPDATE SET n = n + 1;
END;
-- A record erased for good (or its user deleted) leaves no zero row behind.
CREATE TRIGGER notes_count_delete AFTER DELETE ON notes BEGIN
  UPDATE records_counts SET n = n - 1
  WHERE user_id = OLD.user_id AND resource = 'notes' AND deleted = (OLD.deleted_at IS NOT NULL) AND archived = OLD.archived;
  DELETE FROM records_counts
  WHERE user_id = OLD.user_id AND resource = 'notes' AND deleted = (OLD.deleted_at IS NOT NULL) AND archived = OLD.archived AND n = 0;
END;
-- Every update writes archived (the store sets each column); only a change of state moves counts.
CREATE TRIGGER notes_count_update AFTER UPDATE OF user_id, deleted_at, archived ON notes
WHEN OLD.user_id IS NOT NEW.user_id OR (OLD.deleted_at IS NULL) IS NOT (NEW.deleted_at IS NULL) OR OLD.archived IS NOT NEW.archived
BEGIN
  UPDATE records_counts SET n = n - 1
  WHERE user_id = OLD.user_id AND resource = 'notes' AND deleted = (OLD.deleted_at IS NOT NULL) AND archived = OLD.archived;
  INSERT INTO records_counts (user_id, resource, deleted, archived, n)
  VALUES (NEW.user_id, 'notes', NEW.deleted_at IS NOT NULL, NEW.archived, 1)
  ON CONFLICT (user_id, resource, deleted, archived) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER contacts_count_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO records_counts (user_id, resource, deleted, archived, n)
  VALUES (NEW.user_id, 'contacts', NEW.deleted_at IS NOT NULL, 0, 1)
  ON CONFLICT (user_id, resource, deleted, archived) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER contacts_count_delete AFTER DELETE ON contacts BEGIN
  UPDATE records_counts SET n = n - 1
  WHERE user_id = OLD.user_id AND resource = 'contacts' AND deleted = (OLD.deleted_at IS NOT NULL) AND archived = 0;
  DELETE FROM records_counts
  WHERE user_id = OLD.user_id AND resource = 'contacts' AND deleted = (OLD.deleted_at IS NOT NULL) AND archived = 0 AND n = 0;
END;
CREATE TRIGGER contacts_count_update AFTER UPDATE OF user_id, deleted_at ON contacts
WHEN OLD.user_id IS NOT NEW.user_id OR (OLD.deleted_at IS NULL) IS NOT (NEW.deleted_at IS NULL)
BEGIN
  UPDATE records_counts SET n = n - 1
  WHERE user_id = OLD.user_id AND resource = 'contacts' AND deleted = (OLD.deleted_at IS NOT NULL) AND archived = 0;
  INSERT INTO records_counts (user_id, resource, deleted, archived, n)
  VALUES (NEW.user_id, 'contacts', NEW.deleted_at IS NOT NULL, 0, 1)
  ON CONFLICT (user_id, resource, deleted, archived) DO UPDATE SET n = n + 1;
END;

-- The trash and the archive are usually a few records beside many: without these the list of a
-- small trash walks the sort key's index over every record of the user (0.5 s at 1,000,000 notes).
-- Partial, so they hold only those records; the lister picks them when the counters say the view
-- is small (engine/list.ts). notes_user_archived holds archived notes in the trash too; the
-- archive view (deleted_at IS NULL AND archived = 1) filters those out.
CREATE INDEX notes_user_trash ON notes(user_id, updated_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX notes_user_archived ON notes(user_id, updated_at) WHERE archived = 1;
CREATE INDEX contacts_user_trash ON contacts(user_id, display_name COLLATE NOCASE) WHERE deleted_at IS NOT NULL;
