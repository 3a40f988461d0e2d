-- Events carry their IANA time zone (issue 17): recurrence expands in it, whatever the
-- daemon's process TZ. Events written before expanded in the server's zone; UTC is what
-- an appliance container runs in.
ALTER TABLE events ADD COLUMN timezone TEXT NOT NULL DEFAULT 'UTC';
