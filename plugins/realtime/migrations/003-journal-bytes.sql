-- The journal is bounded by bytes as well as by events and age. bytes_before is the running total of
-- message bytes before the row (its offset in the stream of all messages): an event is kept while the
-- newest offset plus the newest message, minus its own offset, fits the limit, so the cut for a byte
-- limit is one index lookup (offsets grow with seq) and no trim reads the messages it keeps.
ALTER TABLE realtime_journal ADD COLUMN bytes_before INTEGER NOT NULL DEFAULT 0;
UPDATE realtime_journal SET bytes_before = totals.before
  FROM (SELECT seq, sum(length(CAST(message AS BLOB))) OVER (ORDER BY seq) - length(CAST(message AS BLOB)) AS before
        FROM realtime_journal) AS totals
  WHERE totals.seq = realtime_journal.seq;
CREATE INDEX realtime_journal_bytes_before ON realtime_journal (bytes_before);
