/**
 * The starter holds no code: it brings {@code outbox-spring-boot-autoconfigure} (package
 * {@code dev.outboxjava.spring.boot}), {@code spring-boot-starter-jdbc} and the PostgreSQL driver. This
 * package only gives the published artifact its Javadoc.
 */
package dev.outboxjava.spring.boot.starter;
