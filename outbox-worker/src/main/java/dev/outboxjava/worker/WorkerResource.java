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
 * (a connection pool): {@link OutboxWorker#close()} closes them after the loops and the publisher.
 */
@Qualifier
@Retention(RUNTIME)
@Target({FIELD, PARAMETER, METHOD})
public @interface WorkerResource {
}
