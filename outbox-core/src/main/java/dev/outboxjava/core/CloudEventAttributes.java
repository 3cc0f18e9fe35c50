package dev.outboxjava.core;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The CloudEvents envelope of an event, the one mapping both publishers write (Kafka as {@code ce_*}
 * headers in binary content mode, AMQP as {@code cloudEvents:*} headers): which attribute carries
 * which field of the event. Attribute names are those of the CloudEvents 1.0 specification; the key
 * travels in the partitioning extension. A binding writes {@link #DATACONTENTTYPE} as its own
 * content type (Kafka's {@code content-type} header, AMQP's {@code content_type} property).
 */
public final class CloudEventAttributes {

    /** The CloudEvents specification version written. */
    public static final String SPEC_VERSION = "1.0";

    public static final String ID = "id";
    public static final String SOURCE = "source";
    public static final String SPECVERSION = "specversion";
    public static final String TYPE = "type";
    public static final String TIME = "time";
    public static final String DATACONTENTTYPE = "datacontenttype";
    public static final String SUBJECT = "subject";
    public static final String DATASCHEMA = "dataschema";
    /** The CloudEvents partitioning extension: carries the event key. */
    public static final String PARTITIONKEY = "partitionkey";

    /** Every attribute an event may carry, in the order they are written. */
    public static final List<String> ALL =
            List.of(ID, SOURCE, SPECVERSION, TYPE, TIME, DATACONTENTTYPE, SUBJECT, DATASCHEMA, PARTITIONKEY);

    private CloudEventAttributes() {}

    /**
     * The attributes of {@code event} by name, in {@link #ALL} order: {@code subject},
     * {@code dataschema} and {@code partitionkey} only when the event has them. {@code time} is the
     * event's creation time in RFC 3339 (UTC, {@code Z}), as the CloudEvents SDK writes it.
     */
    public static Map<String, String> of(OutboxEvent event) {
        Map<String, String> attributes = new LinkedHashMap<>(16);
        attributes.put(ID, event.id().toString());
        attributes.put(SOURCE, event.source());
        attributes.put(SPECVERSION, SPEC_VERSION);
        attributes.put(TYPE, event.type());
        attributes.put(TIME, time(event));
        attributes.put(DATACONTENTTYPE, event.contentType());
        event.subject().ifPresent(subject -> attributes.put(SUBJECT, subject));
        event.dataSchema().ifPresent(schema -> attributes.put(DATASCHEMA, schema));
        event.key().ifPresent(key -> attributes.put(PARTITIONKEY, key));
        return attributes;
    }

    /**
     * Why {@code event} cannot be sent as a CloudEvent, if it cannot: an own header named like an
     * envelope attribute ({@link ReservedHeaders#problem}), a {@code source} that is not a URI
     * reference, or a {@code dataschema} that is not an absolute URI. The event builder refuses all
     * three, so only a row written around it (plain SQL) has one; every publisher fails such an event
     * as not retryable with this reason, so that no broker passes on what another refuses.
     */
    public static Optional<String> problem(OutboxEvent event) {
        return ReservedHeaders.problem(event.headers())
                .or(() -> SourceUri.problem(event.source()).map(problem -> unpublishable("source", problem)))
                .or(() -> event.dataSchema()
                        .flatMap(DataSchemaUri::problem)
                        .map(problem -> unpublishable("dataschema", problem)));
    }

    private static String unpublishable(String attribute, String problem) {
        return "the event's " + attribute + " " + problem + "; the event cannot be published: correct the stored "
                + "event, or append it again through the event builder (not retryable)";
    }

    private static String time(OutboxEvent event) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(
                OffsetDateTime.ofInstant(event.createdAt(), ZoneOffset.UTC));
    }
}
