-- Contact groups as Apple's Contacts keeps them over CardDAV: a group is a vCard of its own in the
-- address book (X-ADDRESSBOOKSERVER-KIND:group) listing its members' UIDs. Membership lives in the
-- contacts' `groups`; this table gives each group its object: the name and UID its client chose
-- (or Hearth's, for a group set through the JSON API), the card as written while it still holds,
-- and the member UIDs it named that no contact had yet (an address book uploaded groups first).
CREATE TABLE dav_groups (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  grp TEXT NOT NULL,
  uid TEXT NOT NULL,
  -- 1: made by a client (listed while empty, until the client deletes it); 0: there while a contact is in it.
  client INTEGER NOT NULL DEFAULT 0,
  pending TEXT NOT NULL DEFAULT '[]',
  original TEXT,
  original_etag TEXT,
  PRIMARY KEY (user_id, name),
  UNIQUE (user_id, grp)
);
