-- An override erased for good (DELETE ?permanent=true, the trash purge) leaves its occurrence
-- excluded rather than letting the original reappear; a series erased for good takes its
-- overrides with it. (SQLite's recursive triggers are off: the inner delete fires nothing.)
CREATE TRIGGER events_override_erased AFTER DELETE ON events
WHEN OLD.recurrence_id IS NOT NULL AND OLD.occurrence_start IS NOT NULL
BEGIN
  UPDATE events
  SET recurrence = CASE
    WHEN json_type(recurrence, '$.exdates') = 'array' THEN json_insert(recurrence, '$.exdates[#]', OLD.occurrence_start)
    ELSE json_set(recurrence, '$.exdates', json_array(OLD.occurrence_start))
  END
  WHERE id = OLD.recurrence_id AND user_id = OLD.user_id AND recurrence IS NOT NULL;
END;

CREATE TRIGGER events_series_erased AFTER DELETE ON events
WHEN OLD.recurrence IS NOT NULL
BEGIN
  DELETE FROM events WHERE recurrence_id = OLD.id AND user_id = OLD.user_id;
END;
