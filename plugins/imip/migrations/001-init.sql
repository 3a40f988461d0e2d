-- iMIP: what each event's attendees outside the household were last sent. `sequence` is the
-- iCalendar SEQUENCE of the last message (a later one is always greater, a cancellation too);
-- `recipients` the outside addresses it went to (JSON, lower case; [] once cancelled);
-- `fingerprint` what the message said (times, title, place, rule, the addresses): an update that
-- changes none of it (an attendee's answer) sends nothing; `event` the event as last sent, so a
-- cancellation after an erasure still names its title and times; `uid` its iCalendar UID.
CREATE TABLE imip_events (
  event_id TEXT PRIMARY KEY,
  owner_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  uid TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  recipients TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  event TEXT NOT NULL
);

-- Invitation emails each member sent in a UTC day: at most 100 (the rest are not sent).
CREATE TABLE imip_sent (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  day TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (user_id, day)
);
