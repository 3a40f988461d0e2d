-- Properties a record's file format carries and Hearth has no field for (an event's
-- TRANSP, ORGANIZER, UID, X-APPLE-...): kept per record and written back on export
-- (and served by CalDAV/CardDAV later), so a sync through Hearth loses nothing.
-- `lines` is JSON: [[name, [[param, [values...]]...], value], ...] as the file wrote them.
CREATE TABLE records_properties (
  record_id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  resource TEXT NOT NULL,
  lines TEXT NOT NULL
);
CREATE INDEX records_properties_user ON records_properties(user_id, resource);

CREATE TRIGGER notes_properties_gone AFTER DELETE ON notes BEGIN
  DELETE FROM records_properties WHERE record_id = OLD.id;
END;
CREATE TRIGGER contacts_properties_gone AFTER DELETE ON contacts BEGIN
  DELETE FROM records_properties WHERE record_id = OLD.id;
END;
CREATE TRIGGER events_properties_gone AFTER DELETE ON events BEGIN
  DELETE FROM records_properties WHERE record_id = OLD.id;
END;
