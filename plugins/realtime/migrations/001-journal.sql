-- The realtime journal (issue 13): every event message the hub sends, with its seq, kept a
-- bounded while (HEARTH_REALTIME_JOURNAL_SIZE events, HEARTH_REALTIME_JOURNAL_AGE_HOURS) so
-- `GET /api/v1/ws?since=<seq>` can replay what a client missed, across daemon restarts.
-- No index beyond the key: a replay is one range scan from `since`; inserts stay cheap.
CREATE TABLE realtime_journal (
  seq INTEGER PRIMARY KEY,
  user_id TEXT,
  type TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  message TEXT NOT NULL
);

-- trimmed_through: the highest seq trimming removed (a cursor below it may have missed events:
-- resync_required). last_seq: the last seq handed out, saved at a clean stop. clean: 0 while
-- the daemon runs; a start that finds 0 knows the last moments were not written.
CREATE TABLE realtime_journal_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  trimmed_through INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  clean INTEGER NOT NULL
);
INSERT INTO realtime_journal_state (id, trimmed_through, last_seq, clean) VALUES (1, 0, 0, 1);
