-- Contacts' birthday, anniversary, nickname, web addresses and groups. Dates are text as written:
-- YYYY-MM-DD, or --MM-DD when the year is not known (vCard's form), so a year nobody gave is never made up.
ALTER TABLE contacts ADD COLUMN nickname TEXT;
ALTER TABLE contacts ADD COLUMN birthday TEXT;
ALTER TABLE contacts ADD COLUMN anniversary TEXT;
ALTER TABLE contacts ADD COLUMN urls TEXT NOT NULL DEFAULT '[]';
ALTER TABLE contacts ADD COLUMN groups TEXT NOT NULL DEFAULT '[]';

-- vCard CATEGORIES used to land in tags, and tags were written back as CATEGORIES: they are the
-- contact's groups now, so what clients and files carried keeps travelling (tags stay as they were).
UPDATE contacts SET groups = tags WHERE tags <> '[]';

-- Imports used to keep BDAY, ANNIVERSARY, NICKNAME and URL in custom_fields (under birthday,
-- anniversary, nickname, url): the values that fit the fields move there. A date moves when it is
-- one that exists, written YYYY-MM-DD, YYYYMMDD or --MM-DD / --MMDD; anything else stays where it was.
CREATE TEMP TABLE contact_dates AS
SELECT seq, key, CASE
    WHEN v GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' THEN v
    WHEN v GLOB '[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]' THEN substr(v, 1, 4) || '-' || substr(v, 5, 2) || '-' || substr(v, 7, 2)
    WHEN v GLOB '--[0-9][0-9]-[0-9][0-9]' THEN v
    WHEN v GLOB '--[0-9][0-9][0-9][0-9]' THEN '--' || substr(v, 3, 2) || '-' || substr(v, 5, 2)
  END AS d
FROM (SELECT seq, key, json_extract(custom_fields, '$.' || key) AS v
      FROM contacts, (SELECT 'birthday' AS key UNION ALL SELECT 'anniversary')
      WHERE custom_fields IS NOT NULL AND json_type(custom_fields, '$.' || key) = 'text');
-- A year-less date is checked in the leap year 2000, so --02-29 passes and --02-30 does not.
DELETE FROM contact_dates WHERE d IS NULL
  OR (d GLOB '--*' AND date('2000' || substr(d, 2)) IS NOT '2000' || substr(d, 2))
  OR (d NOT GLOB '--*' AND (date(d) IS NOT d OR substr(d, 1, 4) = '0000'));
UPDATE contacts SET birthday = (SELECT d FROM contact_dates c WHERE c.seq = contacts.seq AND c.key = 'birthday'),
  custom_fields = json_remove(custom_fields, '$.birthday')
  WHERE seq IN (SELECT seq FROM contact_dates WHERE key = 'birthday');
UPDATE contacts SET anniversary = (SELECT d FROM contact_dates c WHERE c.seq = contacts.seq AND c.key = 'anniversary'),
  custom_fields = json_remove(custom_fields, '$.anniversary')
  WHERE seq IN (SELECT seq FROM contact_dates WHERE key = 'anniversary');
DROP TABLE contact_dates;
UPDATE contacts SET nickname = json_extract(custom_fields, '$.nickname'), custom_fields = json_remove(custom_fields, '$.nickname')
  WHERE custom_fields IS NOT NULL AND json_type(custom_fields, '$.nickname') = 'text' AND length(json_extract(custom_fields, '$.nickname')) <= 200;
UPDATE contacts SET urls = json_array(json_object('url', json_extract(custom_fields, '$.url'), 'label', NULL)),
  custom_fields = json_remove(custom_fields, '$.url')
  WHERE custom_fields IS NOT NULL AND json_type(custom_fields, '$.url') = 'text'
  AND length(json_extract(custom_fields, '$.url')) BETWEEN 1 AND 2048 AND json_extract(custom_fields, '$.url') NOT GLOB '*[ 	]*';
-- Emptied by the moves: no custom fields, as the API writes it.
UPDATE contacts SET custom_fields = NULL WHERE custom_fields = '{}';

-- The birthdays calendar reads the contacts that have a date to show, and nothing else.
CREATE INDEX contacts_user_dates ON contacts(user_id) WHERE birthday IS NOT NULL OR anniversary IS NOT NULL;

-- 'birthdays' is the name of the read-only calendar made from contacts: events a user had put in a
-- calendar of that name move to 'birthdays-events' (and its shares with them), so none is hidden.
UPDATE events SET calendar_name = 'birthdays-events', version = version + 1 WHERE calendar_name = 'birthdays';
UPDATE records_shares SET target = 'birthdays-events' WHERE kind = 'calendar' AND target = 'birthdays';

-- The nickname is searched with the names.
DROP TRIGGER contacts_fts_insert;
DROP TRIGGER contacts_fts_update;
DROP VIEW contacts_fts_text;
CREATE VIEW contacts_fts_text AS
SELECT
  c.seq,
  concat_ws(' ', c.display_name, c.first_name, c.last_name, c.nickname) AS name,
  (SELECT coalesce(group_concat(json_extract(value, '$.address'), ' '), '') FROM json_each(c.emails)) AS emails,
  (SELECT coalesce(group_concat(concat_ws(' ', n, d, substr(d, -10), substr(d, -7)), ' '), '') FROM (
     SELECT json_extract(value, '$.number') AS n,
       replace(replace(replace(replace(replace(replace(json_extract(value, '$.number'), ' ', ''), '-', ''), '(', ''), ')', ''), '.', ''), '+', '') AS d
     FROM json_each(c.phones))) AS phones,
  coalesce(c.company, '') AS company,
  coalesce(c.notes, '') AS notes
FROM contacts c;
CREATE TRIGGER contacts_fts_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contacts_fts(rowid, name, emails, phones, company, notes)
  SELECT seq, name, emails, phones, company, notes FROM contacts_fts_text WHERE seq = new.seq;
END;
CREATE TRIGGER contacts_fts_update AFTER UPDATE OF display_name, first_name, last_name, nickname, emails, phones, company, notes ON contacts
WHEN old.display_name IS NOT new.display_name OR old.first_name IS NOT new.first_name OR old.last_name IS NOT new.last_name
  OR old.nickname IS NOT new.nickname OR old.emails IS NOT new.emails OR old.phones IS NOT new.phones
  OR old.company IS NOT new.company OR old.notes IS NOT new.notes BEGIN
  DELETE FROM contacts_fts WHERE rowid = old.seq;
  INSERT INTO contacts_fts(rowid, name, emails, phones, company, notes)
  SELECT seq, name, emails, phones, company, notes FROM contacts_fts_text WHERE seq = new.seq;
END;
