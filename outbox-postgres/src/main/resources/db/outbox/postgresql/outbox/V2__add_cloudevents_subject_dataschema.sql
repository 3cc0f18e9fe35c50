-- Outbox for Java: the CloudEvents subject and dataschema attributes of an event, NULL when it has none.
-- Adding a nullable column without a default only changes the catalogue: no table rewrite, and the
-- ACCESS EXCLUSIVE lock is held for an instant.
ALTER TABLE "${outbox_table}"
    ADD COLUMN IF NOT EXISTS subject     text,
    ADD COLUMN IF NOT EXISTS data_schema text;
