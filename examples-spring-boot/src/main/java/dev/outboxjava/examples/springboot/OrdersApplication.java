package dev.outboxjava.examples.springboot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The orders service: {@code POST /orders} stores an order and its {@code order.placed} event in one
 * transaction; the relay in the same process publishes the event to Kafka right after the commit.
 * Needs {@code spring.datasource.*} and {@code spring.kafka.bootstrap-servers}; {@link EmbeddedServices}
 * starts it on an embedded PostgreSQL and an in-process Kafka broker.
 */
@SpringBootApplication
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }
}
