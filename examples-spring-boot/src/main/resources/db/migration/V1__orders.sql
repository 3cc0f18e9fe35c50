CREATE TABLE orders (
    id          uuid        PRIMARY KEY,
    customer    text        NOT NULL,
    sku         text        NOT NULL,
    quantity    integer     NOT NULL,
    placed_at   timestamptz NOT NULL
);
