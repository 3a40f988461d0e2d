-- Per-user AI settings (bring your own key): the key is encrypted with the instance key (api.secrets).
CREATE TABLE ai_settings (
  user_id TEXT PRIMARY KEY,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  embedding_model TEXT NOT NULL,
  api_key_enc TEXT,
  base_url TEXT,
  updated_at TEXT NOT NULL
);

-- One embedding per record: a unit-length Float32 vector as a little-endian BLOB.
CREATE TABLE ai_embeddings (
  user_id TEXT NOT NULL,
  type TEXT NOT NULL,
  record_id TEXT NOT NULL,
  model TEXT NOT NULL,
  dims INTEGER NOT NULL,
  text_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, type, record_id)
);
CREATE INDEX ai_embeddings_model ON ai_embeddings (user_id, model, dims);

-- A user's index: present once built (POST /ai/reindex); the live indexer keeps it current.
CREATE TABLE ai_index_state (
  user_id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  total INTEGER NOT NULL DEFAULT 0,
  done INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  model TEXT,
  dims INTEGER,
  error TEXT,
  started_at TEXT,
  finished_at TEXT
);

-- 'dirty' = 1: embeddings were written while sqlite-vec was not loaded, so its vec0 tables
-- (ai_vec_<dims>, made at run time: they need the extension) are rebuilt at the next start with it.
CREATE TABLE ai_vector_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
