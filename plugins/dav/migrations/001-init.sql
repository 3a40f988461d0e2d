-- Calendars made by MKCALENDAR before they hold an event (a calendar is a calendar_name of events).
CREATE TABLE dav_calendars (
  user_id TEXT NOT NULL,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, name)
);

-- Where each record lives in DAV: its collection, the object name a client chose (or <id>.vcf/.ics),
-- and the object as the client last wrote it with the record's ETag then (given back while unchanged).
CREATE TABLE dav_objects (
  record_id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('card', 'event')),
  collection TEXT NOT NULL,
  name TEXT NOT NULL,
  -- 1 for the object's own record; 0 for an overridden occurrence filed under its series' object.
  main INTEGER NOT NULL DEFAULT 1,
  original TEXT,
  original_etag TEXT
);
CREATE INDEX dav_objects_name ON dav_objects(user_id, kind, collection, name);

-- The change log behind sync tokens (RFC 6578): one row per change of an object, deletions included.
-- kind '*' marks a change too large to list (a big import): tokens older than it are refused.
CREATE TABLE dav_changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  collection TEXT NOT NULL,
  name TEXT NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX dav_changes_collection ON dav_changes(user_id, kind, collection, seq);
