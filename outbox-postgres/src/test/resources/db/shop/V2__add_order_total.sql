ALTER TABLE orders ADD COLUMN total_cents bigint NOT NULL DEFAULT 0;
