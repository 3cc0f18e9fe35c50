package dev.outboxjava.core;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Header names that belong to the CloudEvents envelope the publishers write, compared
 * case-insensitively: {@code ce_*} / {@code ce-*} (Kafka and HTTP bindings), {@code cloudEvents_*} /
 * {@code cloudEvents:*} / {@code cloudEvents-*} (the AMQP binding's prefixes; consumers read either),
 * and {@code content-type} / {@code content_type}. An event's own header of such a name could pass
 * itself off as the real id, type or source, so the builder refuses it, and the publishers fail (not
 * retryable) an event whose stored row still carries one rather than dropping or overwriting it.
 * The attributes themselves are listed in {@link CloudEventAttributes}.
 */
public final class ReservedHeaders {

    private static final List<String> PREFIXES = List.of("ce_", "ce-", "cloudevents_", "cloudevents:", "cloudevents-");
    private static final List<String> NAMES = List.of("content-type", "content_type");

    private ReservedHeaders() {}

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

    /**
     * Why an event with {@code headers} cannot be published, if one of them is reserved: a row
     * written without the event builder (plain SQL) may carry one. The publishers fail such an event
     * as not retryable with this reason.
     */
    public static Optional<String> problem(Map<String, String> headers) {
        for (String name : headers.keySet()) {
            if (isReserved(name)) {
                return Optional.of("the event's header '" + name + "' is reserved for the CloudEvents envelope, "
                        + "which the publisher fills from the event's own fields (ce_*, cloudEvents_*, cloudEvents:* "
                        + "and content-type, in any case); it is neither dropped nor overwritten, so the event cannot "
                        + "be published: remove the header from the stored event, or append it again without it "
                        + "(not retryable)");
            }
        }
        return Optional.empty();
    }
}
