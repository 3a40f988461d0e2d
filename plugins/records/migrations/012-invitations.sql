-- Invitations: who an event names among its attendees, by email (lower case), kept by triggers
-- whatever writes the event (the API, an import, CalDAV, a cascade). A member whose email is
-- here reads the event as its attendee: lists scope by `id IN (SELECT event_id ... WHERE email = ?)`,
-- one lookup of this index; an event rewritten without them takes them out at once. Emails, not
-- user ids: a member who joins later finds the invitations already sent to their address.
CREATE TABLE records_invitations (
  email TEXT NOT NULL,
  event_id TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  PRIMARY KEY (email, event_id)
) WITHOUT ROWID;
CREATE INDEX records_invitations_event ON records_invitations(event_id);

CREATE TRIGGER events_invitations_insert AFTER INSERT ON events WHEN NEW.attendees <> '[]' BEGIN
  INSERT OR IGNORE INTO records_invitations (email, event_id, owner_id)
    SELECT lower(json_extract(value, '$.email')), NEW.id, NEW.user_id FROM json_each(NEW.attendees)
    WHERE json_extract(value, '$.email') IS NOT NULL;
END;
CREATE TRIGGER events_invitations_update AFTER UPDATE OF attendees ON events WHEN OLD.attendees IS NOT NEW.attendees BEGIN
  DELETE FROM records_invitations WHERE event_id = OLD.id;
  INSERT OR IGNORE INTO records_invitations (email, event_id, owner_id)
    SELECT lower(json_extract(value, '$.email')), NEW.id, NEW.user_id FROM json_each(NEW.attendees)
    WHERE json_extract(value, '$.email') IS NOT NULL;
END;
CREATE TRIGGER events_invitations_delete AFTER DELETE ON events BEGIN
  DELETE FROM records_invitations WHERE event_id = OLD.id;
END;

INSERT OR IGNORE INTO records_invitations (email, event_id, owner_id)
  SELECT lower(json_extract(j.value, '$.email')), e.id, e.user_id FROM events e, json_each(e.attendees) j
  WHERE e.attendees <> '[]' AND json_extract(j.value, '$.email') IS NOT NULL;
