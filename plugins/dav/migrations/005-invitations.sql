-- Invitations over CalDAV: the members each event's Invitations objects were last listed for, so
-- an organizer's edit that drops an attendee logs the object as gone from that attendee's
-- Invitations collection (sync-collection reports it removed). Written as the events change.
CREATE TABLE dav_invitations (
  record_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  PRIMARY KEY (record_id, user_id)
) WITHOUT ROWID;
