package dev.outboxjava.kafka.internal;

import java.util.regex.Pattern;

/** Kafka's rule for topic names, so an invalid destination fails before it reaches the producer. */
final class TopicNames {

    /** The rule in words, for failure reasons. */
    public static final String RULE =
            "a Kafka topic name has 1-249 characters from a-z, A-Z, 0-9, '.', '_' and '-', " + "and is not '.' or '..'";

    private static final int MAX_LENGTH = 249;
    private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]+");

    private TopicNames() {}

    /** Whether Kafka accepts {@code name} as a topic name. */
    public static boolean isValid(String name) {
        return !name.isEmpty()
                && name.length() <= MAX_LENGTH
                && !name.equals(".")
                && !name.equals("..")
                && LEGAL.matcher(name).matches();
    }
}
