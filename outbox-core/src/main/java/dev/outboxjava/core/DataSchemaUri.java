package dev.outboxjava.core;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;

/**
 * The rule for {@code dataSchema}: an absolute URI, as CloudEvents requires of its {@code dataschema}
 * attribute (e.g. {@code https://example.com/schemas/order-placed-v1.json}); the SDKs refuse anything
 * else when they read the event.
 */
final class DataSchemaUri {

    private DataSchemaUri() {}

    /** @throws InvalidEventException naming {@code dataSchema} when the value is not an absolute URI */
    static void require(String dataSchema) {
        problem(dataSchema).ifPresent(problem -> {
            throw new InvalidEventException("dataSchema", problem);
        });
    }

    /** Why {@code dataSchema} is not an absolute URI, if it is not. */
    static Optional<String> problem(String dataSchema) {
        URI uri;
        try {
            uri = new URI(dataSchema);
        } catch (URISyntaxException e) {
            return Optional.of("'" + dataSchema + "' is not a URI: " + e.getReason() + " at index " + e.getIndex());
        }
        return uri.isAbsolute()
                ? Optional.empty()
                : Optional.of(
                        "'" + dataSchema + "' is not an absolute URI, which "
                                + "CloudEvents requires of its dataschema attribute (e.g. https://example.com/schemas/v1.json)");
    }
}
