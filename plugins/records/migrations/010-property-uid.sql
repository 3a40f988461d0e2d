-- A record's UID (the iCalendar/vCard property clients name it by) in a column of its own, indexed:
-- every CalDAV/CardDAV PUT and every import of a task chain looks a record up by UID, which read
-- and parsed every stored property line of the member's resource.
ALTER TABLE records_properties ADD COLUMN uid TEXT;
UPDATE records_properties SET uid = (
  SELECT json_extract(j.value, '$[2]') FROM json_each(records_properties.lines) j
  WHERE json_extract(j.value, '$[0]') = 'UID' LIMIT 1
);
CREATE INDEX records_properties_uid ON records_properties(user_id, resource, uid) WHERE uid IS NOT NULL;
