/**
 * Spring Boot test support of the outbox: {@link dev.outboxjava.spring.boot.test.OutboxServices} gives a
 * {@code @SpringBootTest} PostgreSQL, Kafka and RabbitMQ from the testkit's fixtures.
 */
package dev.outboxjava.spring.boot.test;
