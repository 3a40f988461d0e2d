-- Overridden occurrences (RFC 5545 RECURRENCE-ID): an event that replaces one occurrence of a
-- series names the series (recurrence_id) and the start it replaces (occurrence_start, an ISO
-- instant). Expansion skips those starts; the override lists as the plain event it is.
ALTER TABLE events ADD COLUMN recurrence_id TEXT;
ALTER TABLE events ADD COLUMN occurrence_start TEXT;
CREATE INDEX events_overrides ON events(user_id, recurrence_id) WHERE recurrence_id IS NOT NULL;
