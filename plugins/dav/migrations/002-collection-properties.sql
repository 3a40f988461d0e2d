-- The properties a client may set on a collection (PROPPATCH, MKCALENDAR's body): a calendar's or the
-- address book's name, description, colour and order. One row per property set; no row = the default.
CREATE TABLE dav_collection_props (
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('card', 'event')),
  collection TEXT NOT NULL,
  prop TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (user_id, kind, collection, prop)
);
