package dev.outboxjava.worker;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import jakarta.inject.Qualifier;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * Marks the {@code Multibinder<AutoCloseable>} of resources an adapter module created for the worker
 * (a connection pool): {@link OutboxWorker#close()} closes them after the loops and the publisher,
 * waiting for each no longer than what is left of its shutdown bound (a close that takes longer
 * finishes in the background).
 */
@Qualifier
@Retention(RUNTIME)
@Target({FIELD, PARAMETER, METHOD})
public @interface WorkerResource {}
