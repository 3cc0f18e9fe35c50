package dev.outboxjava.core;

/**
 * The rule for every text field of an event: it must be valid Unicode that PostgreSQL can store and
 * a broker can carry unchanged. A NUL character (U+0000) cannot be stored in a PostgreSQL
 * {@code text} or {@code jsonb} value at all: the INSERT fails and aborts the caller's transaction.
 * A lone UTF-16 surrogate is not a character: encoders replace it with {@code ?}, so the value
 * would silently change on its way to the consumer.
 */
final class StorableText {

    private StorableText() {}

    /**
     * @throws InvalidEventException naming {@code field} when {@code value} holds a NUL or a lone surrogate
     */
    static void require(String field, String what, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\0') {
                throw new InvalidEventException(
                        field,
                        what + " contains a NUL character (U+0000) at index " + i
                                + ", which PostgreSQL cannot store; remove it or encode the value (e.g. Base64)");
            }
            if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new InvalidEventException(
                        field,
                        what + " contains a lone UTF-16 surrogate (U+"
                                + String.format("%04X", (int) c) + ") at index " + i
                                + ", which is not valid Unicode and "
                                + "would reach the broker as '?'; check how the string was cut or decoded");
            }
        }
    }
}
