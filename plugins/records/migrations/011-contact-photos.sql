-- Contact photos: one re-encoded JPEG per contact, kept beside the contact's row (not in it: list
-- pages and the record cache never carry the bytes). has_photo is the contact's own field, so
-- setting or removing a photo is a write of the contact (its version, its vCard's ETag, its event).
ALTER TABLE contacts ADD COLUMN has_photo INTEGER NOT NULL DEFAULT 0;

CREATE TABLE contact_photos (
  contact_id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  bytes BLOB NOT NULL,
  etag TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX contact_photos_user ON contact_photos(user_id);

-- A contact erased for good (or purged from the trash) takes its photo with it.
CREATE TRIGGER contacts_photo_gone AFTER DELETE ON contacts BEGIN
  DELETE FROM contact_photos WHERE contact_id = OLD.id;
END;
