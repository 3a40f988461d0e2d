-- The realtime journal (issue 13): every event message the hub sends, with its seq, kept a
-- bounded while (HEARTH_REALTIME_JOURNAL_SIZE events, HEARTH_REALTIME_JOURNAL_AGE_HOURS) so
-- `GET /api/v1/ws?since=<seq>` can replay what a client missed, across daemon restarts.
-- AUTOINCREMENT: a seq is never handed out twice, even after the journal was trimmed empty.
-- No index beyond the key: a replay is one range scan from `since`; inserts stay cheap.
CREATE TABLE realtime_journal (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id TEXT,
  type TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  message TEXT NOT NULL
);

-- The highest seq trimming removed: a cursor below it may have missed events (resync_required).
CREATE TABLE realtime_journal_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  trimmed_through INTEGER NOT NULL
);
INSERT INTO realtime_journal_state (id, trimmed_through) VALUES (1, 0);
