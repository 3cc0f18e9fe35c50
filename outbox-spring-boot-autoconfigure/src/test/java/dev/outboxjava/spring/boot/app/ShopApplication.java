package dev.outboxjava.spring.boot.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A small service as a user writes it: JPA orders, JdbcTemplate order lines, events through the outbox. */
@SpringBootApplication
public class ShopApplication {}
