-- One row per photo file and user: each pro user indexes the household's photos folder with their own vision model.
CREATE TABLE photos_index (
  id TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL,
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms INTEGER NOT NULL,
  taken_at TEXT,
  camera_make TEXT,
  camera_model TEXT,
  latitude REAL,
  longitude REAL,
  caption TEXT,
  labels TEXT NOT NULL DEFAULT '[]',
  thumbnail TEXT,
  error TEXT,
  indexed_at TEXT NOT NULL,
  PRIMARY KEY (user_id, path)
);
CREATE INDEX photos_index_taken ON photos_index (user_id, taken_at);

CREATE TABLE photos_index_state (
  user_id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  total INTEGER NOT NULL DEFAULT 0,
  done INTEGER NOT NULL DEFAULT 0,
  indexed INTEGER NOT NULL DEFAULT 0,
  skipped INTEGER NOT NULL DEFAULT 0,
  removed INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  started_at TEXT,
  finished_at TEXT
);
