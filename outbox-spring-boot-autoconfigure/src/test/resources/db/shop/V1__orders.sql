CREATE TABLE orders (id uuid PRIMARY KEY, customer text NOT NULL, total_cents bigint NOT NULL);
CREATE TABLE order_lines (order_id uuid NOT NULL REFERENCES orders (id), sku text NOT NULL, quantity int NOT NULL);
