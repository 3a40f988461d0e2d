-- Task lists over CalDAV: a third kind of object ('task', a VTODO in a task-list collection) beside
-- cards and events. SQLite cannot change a CHECK constraint, so the two tables that name the kinds
-- are rebuilt with 'task' allowed; dav_calendars gains the kind (a task list and a calendar may
-- share a name: 'default' is both), made part of its key.
CREATE TABLE dav_objects_v3 (
  record_id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('card', 'event', 'task')),
  collection TEXT NOT NULL,
  name TEXT NOT NULL,
  main INTEGER NOT NULL DEFAULT 1,
  original TEXT,
  original_etag TEXT
);
INSERT INTO dav_objects_v3 (record_id, user_id, kind, collection, name, main, original, original_etag)
SELECT record_id, user_id, kind, collection, name, main, original, original_etag FROM dav_objects;
DROP TABLE dav_objects;
ALTER TABLE dav_objects_v3 RENAME TO dav_objects;
CREATE INDEX dav_objects_name ON dav_objects(user_id, kind, collection, name);

CREATE TABLE dav_collection_props_v3 (
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('card', 'event', 'task')),
  collection TEXT NOT NULL,
  prop TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (user_id, kind, collection, prop)
);
INSERT INTO dav_collection_props_v3 (user_id, kind, collection, prop, value)
SELECT user_id, kind, collection, prop, value FROM dav_collection_props;
DROP TABLE dav_collection_props;
ALTER TABLE dav_collection_props_v3 RENAME TO dav_collection_props;

CREATE TABLE dav_calendars_v3 (
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'event' CHECK (kind IN ('event', 'task')),
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, kind, name)
);
INSERT INTO dav_calendars_v3 (user_id, kind, name, created_at) SELECT user_id, 'event', name, created_at FROM dav_calendars;
DROP TABLE dav_calendars;
ALTER TABLE dav_calendars_v3 RENAME TO dav_calendars;
