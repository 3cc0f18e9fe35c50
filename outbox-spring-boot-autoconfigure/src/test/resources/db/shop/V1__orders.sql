CREATE TABLE orders (id uuid PRIMARY KEY, customer text NOT NULL, total_cents bigint NOT NULL);
