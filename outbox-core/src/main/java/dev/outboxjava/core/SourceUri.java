package dev.outboxjava.core;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;

/**
 * The rule for {@code source}: a URI reference, as CloudEvents requires of its {@code source}
 * attribute (e.g. {@code /orders-service}, {@code urn:example:orders},
 * {@code https://example.com/orders}). Every publisher sends it as that attribute, so a value that
 * is not one would be refused by one broker's CloudEvents binding and passed on by another.
 */
final class SourceUri {

    private SourceUri() {}

    /** @throws InvalidEventException naming {@code source} when the value is not a URI reference */
    static void require(String source) {
        problem(source).ifPresent(problem -> {
            throw new InvalidEventException("source", problem);
        });
    }

    /** Why {@code source} is not a URI reference, if it is not. */
    static Optional<String> problem(String source) {
        try {
            new URI(source);
            return Optional.empty();
        } catch (URISyntaxException e) {
            return Optional.of("'" + source + "' is not a URI reference, which CloudEvents "
                    + "requires of its source attribute (e.g. /orders-service or urn:example:orders): "
                    + e.getReason() + " at index " + e.getIndex());
        }
    }
}
