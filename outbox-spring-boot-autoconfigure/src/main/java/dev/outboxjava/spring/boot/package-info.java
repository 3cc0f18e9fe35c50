/**
 * Spring Boot auto-configuration of the outbox: {@link dev.outboxjava.spring.boot.SpringOutbox} appends in
 * the application's transaction, the relay runs on the application's data source, broker settings and
 * meter registry, configured by {@link dev.outboxjava.spring.boot.OutboxProperties}.
 */
package dev.outboxjava.spring.boot;
