-- An application's own first migration, in its own history (flyway_schema_history).
CREATE TABLE orders (
    id       bigint PRIMARY KEY,
    customer text   NOT NULL
);
