-- The trim by age (every few minutes and at start) asked for max(seq) WHERE at_ms < ? without an index:
-- a scan of the whole journal, every row's message read into SQLite's page cache (~6 MB for 10,000
-- events) and kept there for the daemon's life (docs/performance.md, "the realtime journal's trim").
-- With this index it reads the index entries of the events it removes. The trim by size needs no
-- query: the seqs above trimmed_through have no gaps (see journal.ts).
CREATE INDEX realtime_journal_at_ms ON realtime_journal (at_ms);
