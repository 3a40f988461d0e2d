-- Tasks (VTODO): the fourth records resource, laid out as the other three (seq for the full-text
-- index, the public UUID in id, JSON text for arrays, a version per write for ETags).
CREATE TABLE tasks (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  description TEXT,
  status TEXT NOT NULL DEFAULT 'needs-action',
  due_at TEXT,
  start_at TEXT,
  all_day INTEGER NOT NULL DEFAULT 0,
  completed_at TEXT,
  priority INTEGER NOT NULL DEFAULT 0,
  list_name TEXT NOT NULL DEFAULT 'default',
  parent_id TEXT,
  tags TEXT NOT NULL DEFAULT '[]',
  recurrence TEXT,
  reminders TEXT NOT NULL DEFAULT '[]',
  timezone TEXT NOT NULL DEFAULT 'UTC',
  custom_fields TEXT,
  source TEXT NOT NULL DEFAULT 'local',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT,
  version INTEGER NOT NULL DEFAULT 1
);
-- The default order: due date, tasks without one last.
CREATE INDEX tasks_user_due ON tasks(user_id, due_at);
CREATE INDEX tasks_user_priority ON tasks(user_id, nullif(priority, 0));
CREATE INDEX tasks_user_updated ON tasks(user_id, updated_at);
CREATE INDEX tasks_user_created ON tasks(user_id, created_at);
CREATE INDEX tasks_user_title ON tasks(user_id, title COLLATE NOCASE);
CREATE INDEX tasks_user_list ON tasks(user_id, list_name, due_at);
CREATE INDEX tasks_user_parent ON tasks(user_id, parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX tasks_deleted ON tasks(deleted_at) WHERE deleted_at IS NOT NULL;

CREATE VIRTUAL TABLE tasks_fts USING fts5(
  title, description,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER tasks_fts_insert AFTER INSERT ON tasks BEGIN
  INSERT INTO tasks_fts(rowid, title, description) VALUES (new.seq, new.title, coalesce(new.description, ''));
END;
CREATE TRIGGER tasks_fts_update AFTER UPDATE OF title, description ON tasks
WHEN old.title IS NOT new.title OR old.description IS NOT new.description BEGIN
  DELETE FROM tasks_fts WHERE rowid = old.seq;
  INSERT INTO tasks_fts(rowid, title, description) VALUES (new.seq, new.title, coalesce(new.description, ''));
END;
CREATE TRIGGER tasks_fts_delete AFTER DELETE ON tasks BEGIN
  DELETE FROM tasks_fts WHERE rowid = old.seq;
END;

CREATE TRIGGER tasks_properties_gone AFTER DELETE ON tasks BEGIN
  DELETE FROM records_properties WHERE record_id = OLD.id;
END;

-- A task erased for good leaves its subtasks at the top level (their version moves: a change).
CREATE TRIGGER tasks_parent_erased AFTER DELETE ON tasks BEGIN
  UPDATE tasks SET parent_id = NULL, version = version + 1 WHERE parent_id = OLD.id AND user_id = OLD.user_id;
END;
