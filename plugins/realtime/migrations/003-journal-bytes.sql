-- The journal is bounded by bytes as well as by events and age. cum_bytes is the running total of
-- message bytes up to and including the row: the bytes kept are the newest row's total minus the
-- total at the cut, and the cut for a byte limit is one index lookup (the totals grow with seq),
-- so no trim reads the messages it keeps.
ALTER TABLE realtime_journal ADD COLUMN cum_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE realtime_journal SET cum_bytes = totals.cum
  FROM (SELECT seq, sum(length(CAST(message AS BLOB))) OVER (ORDER BY seq) AS cum FROM realtime_journal) AS totals
  WHERE totals.seq = realtime_journal.seq;
CREATE INDEX realtime_journal_cum_bytes ON realtime_journal (cum_bytes);
