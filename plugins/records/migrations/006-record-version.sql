-- Optimistic concurrency (issue 13): every row carries a version that each write raises by one.
-- The API answers it as the record's ETag ("<version>", strong); If-Match compares against it
-- inside the UPDATE itself, so a stale write can never slip in between a check and the write.
-- DAV serves the same value as its getetag.
ALTER TABLE notes ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE contacts ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE events ADD COLUMN version INTEGER NOT NULL DEFAULT 1;

-- An override erased for good adds its start to the series' exdates: a change of the series,
-- so its version moves too (the trigger of 005, recreated with the bump).
DROP TRIGGER events_override_erased;
CREATE TRIGGER events_override_erased AFTER DELETE ON events
WHEN OLD.recurrence_id IS NOT NULL AND OLD.occurrence_start IS NOT NULL
BEGIN
  UPDATE events
  SET recurrence = CASE
    WHEN json_type(recurrence, '$.exdates') = 'array' THEN json_insert(recurrence, '$.exdates[#]', OLD.occurrence_start)
    ELSE json_set(recurrence, '$.exdates', json_array(OLD.occurrence_start))
  END,
  version = version + 1
  WHERE id = OLD.recurrence_id AND user_id = OLD.user_id AND recurrence IS NOT NULL;
END;
