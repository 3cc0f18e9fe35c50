package dev.outboxjava.core;

import java.util.List;
import java.util.Locale;

/**
 * Header names that belong to the CloudEvents envelope the publishers write, compared
 * case-insensitively: {@code ce_*} / {@code ce-*} (Kafka and HTTP bindings), {@code cloudEvents_*} /
 * {@code cloudEvents:*} / {@code cloudEvents-*} (the AMQP binding's prefixes; consumers read either),
 * and {@code content-type} / {@code content_type}. An event's own header of such a name could pass
 * itself off as the real id, type or source, so the builder refuses it and the publishers drop any
 * that a stored row still carries.
 */
public final class ReservedHeaders {

    private static final List<String> PREFIXES = List.of("ce_", "ce-", "cloudevents_", "cloudevents:", "cloudevents-");
    private static final List<String> NAMES = List.of("content-type", "content_type");

    private ReservedHeaders() {
    }

    /** Whether {@code name} is reserved for the CloudEvents envelope. */
    public static boolean isReserved(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (String prefix : PREFIXES) {
            if (lower.startsWith(prefix)) {
                return true;
            }
        }
        return NAMES.contains(lower);
    }
}
