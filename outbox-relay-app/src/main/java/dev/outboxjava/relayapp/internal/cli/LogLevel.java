package dev.outboxjava.relayapp.internal.cli;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Applies {@code outbox.log.level} to the root logger when logback is the binding (the standalone jar). */
final class LogLevel {

    private LogLevel() {}

    static void apply(String level) {
        Logger root = LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
        if (root instanceof ch.qos.logback.classic.Logger logback) {
            logback.setLevel(ch.qos.logback.classic.Level.toLevel(level, ch.qos.logback.classic.Level.INFO));
        }
    }
}
