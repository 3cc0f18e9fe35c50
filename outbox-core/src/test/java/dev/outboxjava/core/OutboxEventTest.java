package dev.outboxjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.internal.UuidV7;
import dev.outboxjava.core.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("OutboxEvent")
class OutboxEventTest {

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    private OutboxEvent.Builder valid() {
        return OutboxEvent.builder()
                .type("order.placed")
                .destination("orders")
                .payload("{\"id\":1}".getBytes(StandardCharsets.UTF_8))
                .clock(clock);
    }

    private static ThrowableAssert.ThrowingCallable build(
            Consumer<OutboxEvent.Builder> change, OutboxEvent.Builder builder) {
        change.accept(builder);
        return builder::build;
    }

    private void assertRejected(Consumer<OutboxEvent.Builder> change, String field, String... messageParts) {
        assertThatThrownBy(build(change, valid()))
                .isInstanceOfSatisfying(InvalidEventException.class, e -> {
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.getMessage()).contains("'" + field + "'").contains(messageParts);
                })
                .isInstanceOf(OutboxException.class);
    }

    @Nested
    @DisplayName("a new event from the builder")
    class NewEvent {

        @Test
        @DisplayName("is pending, untried, due at its creation time, with the documented defaults")
        void hasDefaults() {
            OutboxEvent event = valid().build();

            assertThat(event.status()).isEqualTo(EventStatus.PENDING);
            assertThat(event.attempts()).isZero();
            assertThat(event.maxAttempts()).isEqualTo(OutboxEvent.DEFAULT_MAX_ATTEMPTS);
            assertThat(event.createdAt()).isEqualTo(clock.instant());
            assertThat(event.nextAttemptAt()).isEqualTo(clock.instant());
            assertThat(event.source()).isEqualTo(OutboxEvent.DEFAULT_SOURCE);
            assertThat(event.contentType()).isEqualTo(OutboxEvent.DEFAULT_CONTENT_TYPE);
            assertThat(event.routingKey()).isEmpty();
            assertThat(event.key()).isEmpty();
            assertThat(event.keyOrEmpty()).isEmpty();
            assertThat(event.headers()).isEmpty();
            assertThat(event.lastError()).isEmpty();
            assertThat(event.leaseId()).isEmpty();
            assertThat(event.leasedAt()).isEmpty();
            assertThat(event.sentAt()).isEmpty();
            assertThat(event.sequence()).isZero();
        }

        @Test
        @DisplayName("keeps every field the caller set")
        void keepsFields() {
            UUID id = UUID.randomUUID();
            Instant later = clock.instant().plus(Duration.ofMinutes(5));
            OutboxEvent event = valid().id(id)
                    .source("/orders-service")
                    .key("order-42")
                    .routingKey("orders.eu")
                    .contentType("application/avro")
                    .header("tenant", "acme")
                    .headers(Map.of("trace-id", "abc"))
                    .maxAttempts(3)
                    .availableAt(later)
                    .build();

            assertThat(event.id()).isEqualTo(id);
            assertThat(event.source()).isEqualTo("/orders-service");
            assertThat(event.key()).contains("order-42");
            assertThat(event.keyOrEmpty()).isEqualTo("order-42");
            assertThat(event.routingKey()).isEqualTo("orders.eu");
            assertThat(event.contentType()).isEqualTo("application/avro");
            assertThat(event.headers()).containsOnly(Map.entry("tenant", "acme"), Map.entry("trace-id", "abc"));
            assertThat(event.maxAttempts()).isEqualTo(3);
            assertThat(event.nextAttemptAt()).isEqualTo(later);
            assertThat(event.createdAt()).isEqualTo(clock.instant());
        }

        @Test
        @DisplayName("accepts an empty payload and a payload of exactly the maximum size")
        void acceptsPayloadBounds() {
            assertThat(valid().payload(new byte[0]).build().payloadSize()).isZero();
            assertThat(valid().maxPayloadBytes(16).payload(new byte[16]).build().payloadSize())
                    .isEqualTo(16);
        }

        @Test
        @DisplayName("accepts names and keys of exactly the maximum length")
        void acceptsMaximumLengths() {
            String name = "t".repeat(OutboxEvent.MAX_NAME_LENGTH);
            OutboxEvent event = valid().type(name)
                    .source(name)
                    .destination(name)
                    .routingKey(name)
                    .key("k".repeat(OutboxEvent.MAX_KEY_LENGTH))
                    .header(
                            "h".repeat(OutboxEvent.MAX_HEADER_NAME_LENGTH),
                            "v".repeat(OutboxEvent.MAX_HEADER_VALUE_LENGTH))
                    .build();
            assertThat(event.type()).hasSize(OutboxEvent.MAX_NAME_LENGTH);
        }
    }

    @Nested
    @DisplayName("the builder rejects, naming the field and the reason,")
    class Validation {

        @ParameterizedTest(name = "type \"{0}\"")
        @ValueSource(strings = {"", " ", "\t\n"})
        @DisplayName("a blank type")
        void blankType(String value) {
            assertRejected(b -> b.type(value), "type", "must not be blank");
        }

        @Test
        @DisplayName("a missing type")
        void missingType() {
            assertRejected(b -> b.type(null), "type", "is required");
        }

        @Test
        @DisplayName("an over-long type")
        void longType() {
            assertRejected(b -> b.type("t".repeat(256)), "type", "256 characters", "maximum of 255");
        }

        @Test
        @DisplayName("a blank source")
        void blankSource() {
            assertRejected(b -> b.source("  "), "source", "must not be blank");
        }

        @Test
        @DisplayName("an over-long source")
        void longSource() {
            assertRejected(b -> b.source("s".repeat(256)), "source", "maximum of 255");
        }

        @Test
        @DisplayName("a blank destination")
        void blankDestination() {
            assertRejected(b -> b.destination(""), "destination", "must not be blank");
        }

        @Test
        @DisplayName("a missing destination")
        void missingDestination() {
            assertRejected(b -> b.destination(null), "destination", "is required");
        }

        @Test
        @DisplayName("an over-long destination")
        void longDestination() {
            assertRejected(b -> b.destination("d".repeat(300)), "destination", "300 characters", "maximum of 255");
        }

        @Test
        @DisplayName("an over-long routing key")
        void longRoutingKey() {
            assertRejected(b -> b.routingKey("r".repeat(256)), "routingKey", "at most 255");
        }

        @Test
        @DisplayName("a null routing key (\"\" means none)")
        void nullRoutingKey() {
            assertRejected(b -> b.routingKey(null), "routingKey", "use \"\" for none");
        }

        @ParameterizedTest(name = "key \"{0}\"")
        @ValueSource(strings = {"", "   "})
        @DisplayName("a blank key")
        void blankKey(String value) {
            assertRejected(b -> b.key(value), "key", "non-blank", "leave it unset");
        }

        @Test
        @DisplayName("an over-long key")
        void longKey() {
            assertRejected(b -> b.key("k".repeat(OutboxEvent.MAX_KEY_LENGTH + 1)), "key", "1-1024");
        }

        @Test
        @DisplayName("a blank content type")
        void blankContentType() {
            assertRejected(b -> b.contentType(""), "contentType", "must not be blank");
        }

        @Test
        @DisplayName("a missing payload")
        void missingPayload() {
            assertRejected(b -> b.payload(null), "payload", "is required");
        }

        @Test
        @DisplayName("a payload over the default maximum of 1 MiB, naming its size and the setting to raise")
        void payloadOverDefaultMaximum() {
            int size = OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES + 1;
            assertRejected(
                    b -> b.payload(new byte[size]),
                    "payload",
                    size + " bytes",
                    "maximum of " + OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES,
                    "maxPayloadBytes");
        }

        @Test
        @DisplayName("a payload over a configured maximum, naming its size and the setting to raise")
        void payloadOverConfiguredMaximum() {
            assertRejected(
                    b -> b.maxPayloadBytes(100).payload(new byte[101]),
                    "payload",
                    "101 bytes",
                    "maximum of 100",
                    "maxPayloadBytes");
        }

        @Test
        @DisplayName("a negative payload maximum")
        void negativeMaximum() {
            assertRejected(b -> b.maxPayloadBytes(-1), "maxPayloadBytes", "negative");
        }

        @ParameterizedTest(name = "maxAttempts {0}")
        @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
        @DisplayName("an attempt budget below 1")
        void maxAttemptsBelowOne(int value) {
            assertRejected(b -> b.maxAttempts(value), "maxAttempts", "at least 1", "was " + value);
        }

        @ParameterizedTest(name = "header name \"{0}\"")
        @ValueSource(
                strings = {
                    "",
                    "1starts-with-digit",
                    "-dash-first",
                    "_underscore_first",
                    "has space",
                    "colon:name",
                    "slash/name",
                    "ünïcode",
                    "tab\tname",
                    "semi;colon"
                })
        @DisplayName("a header name the brokers reject")
        void badHeaderName(String name) {
            assertRejected(b -> b.header(name, "v"), "headers", "'" + name + "'", "letter");
        }

        @Test
        @DisplayName("a header name longer than 128 characters")
        void longHeaderName() {
            String name = "h".repeat(OutboxEvent.MAX_HEADER_NAME_LENGTH + 1);
            assertRejected(b -> b.header(name, "v"), "headers", "at most 128");
        }

        @ParameterizedTest(name = "header name \"{0}\"")
        @ValueSource(
                strings = {
                    "ce_id",
                    "ce_type",
                    "CE_source",
                    "ce-specversion",
                    "content-type",
                    "Content-Type",
                    "content_type",
                    "cloudEvents_id",
                    "cloudEvents_type",
                    "cloudEvents_source",
                    "CLOUDEVENTS_ID",
                    "cloudevents_partitionkey",
                    "cloudEvents-id"
                })
        @DisplayName("a header name reserved for the CloudEvents envelope")
        void reservedHeaderName(String name) {
            assertRejected(b -> b.header(name, "v"), "headers", "'" + name + "'", "reserved", "CloudEvents");
        }

        @Test
        @DisplayName("a null header name, at once")
        void nullHeaderName() {
            assertThatThrownBy(() -> valid().header(null, "v"))
                    .isInstanceOfSatisfying(
                            InvalidEventException.class,
                            e -> assertThat(e.field()).isEqualTo("headers"))
                    .hasMessageContaining("null");
        }

        @Test
        @DisplayName("a null header value")
        void nullHeaderValue() {
            assertRejected(b -> b.header("tenant", null), "headers", "'tenant'", "null value");
        }

        @Test
        @DisplayName("a null header value given in a map")
        void nullHeaderValueInMap() {
            Map<String, String> headers = new HashMap<>();
            headers.put("tenant", null);
            assertRejected(b -> b.headers(headers), "headers", "'tenant'", "null value");
        }

        @Test
        @DisplayName("an over-long header value")
        void longHeaderValue() {
            assertRejected(
                    b -> b.header("tenant", "v".repeat(OutboxEvent.MAX_HEADER_VALUE_LENGTH + 1)),
                    "headers",
                    "'tenant'",
                    "maximum of " + OutboxEvent.MAX_HEADER_VALUE_LENGTH);
        }

        @ParameterizedTest(name = "header name \"{0}\"")
        @ValueSource(strings = {"tenant", "X-Trace-Id", "a.b_c-d", "traceparent", "cex", "content", "content-length"})
        @DisplayName("(but not) a header name of letters, digits, '.', '_' and '-' that starts with a letter")
        void goodHeaderNamesPass(String name) {
            assertThat(valid().header(name, "v").build().headers()).containsEntry(name, "v");
        }
    }

    @Nested
    @DisplayName("the builder refuses hostile input, naming the field,")
    class HostileInput {

        @Test
        @DisplayName("a NUL character in a header value, which PostgreSQL cannot store")
        void nulInHeaderValue() {
            assertRejected(b -> b.header("tenant", "ac\0me"), "headers", "'tenant'", "NUL", "index 2");
        }

        @Test
        @DisplayName("a NUL character in the type")
        void nulInType() {
            assertRejected(b -> b.type("order\0placed"), "type", "NUL");
        }

        @Test
        @DisplayName("a NUL character in the key")
        void nulInKey() {
            assertRejected(b -> b.key("order-\0"), "key", "NUL");
        }

        @Test
        @DisplayName("a NUL character in a header name, shown escaped")
        void nulInHeaderName() {
            assertRejected(b -> b.header("ten\0ant", "v"), "headers", "ten\\u0000ant");
        }

        @ParameterizedTest(name = "type with {0}")
        @ValueSource(strings = {"\uD800", "order\uDC00", "\uDC00\uD800", "x\uD83D"})
        @DisplayName("a lone UTF-16 surrogate in the type, which would reach the broker as '?'")
        void loneSurrogateInType(String value) {
            assertRejected(b -> b.type(value), "type", "lone UTF-16 surrogate");
        }

        @Test
        @DisplayName("a type, destination, routing key or content type over 255 UTF-8 bytes, which AMQP cannot carry")
        void shortStringBytes() {
            assertRejected(b -> b.type("\u20ac".repeat(86)), "type", "258 bytes", "maximum of 255");
            assertRejected(b -> b.destination("\u00e9".repeat(128)), "destination", "256 bytes");
            assertRejected(b -> b.routingKey("\u00e9".repeat(200)), "routingKey", "400 bytes");
            assertRejected(b -> b.contentType("text/" + "\u00e9".repeat(126)), "contentType", "bytes");
            assertThat(valid().type("\u20ac".repeat(85)).build().type()).hasSize(85);
        }

        @Test
        @DisplayName("a lone surrogate in every other text field")
        void loneSurrogateElsewhere() {
            assertRejected(b -> b.source("/orders\uD800"), "source", "surrogate");
            assertRejected(b -> b.key("k\uDFFF"), "key", "surrogate");
            assertRejected(b -> b.destination("d\uD800"), "destination", "surrogate");
            assertRejected(b -> b.routingKey("r\uD800"), "routingKey", "surrogate");
            assertRejected(b -> b.contentType("text/plain\uD800"), "contentType", "surrogate");
            assertRejected(b -> b.header("tenant", "\uDC00"), "headers", "'tenant'", "surrogate");
        }

        @Test
        @DisplayName("(but not) a character outside the BMP, whose surrogates come in a pair")
        void surrogatePairPasses() {
            OutboxEvent event = valid().type("order.\uD83D\uDE00")
                    .key("\uD83D\uDE00")
                    .header("tenant", "\uD83D\uDE00")
                    .build();
            assertThat(event.type()).endsWith("\uD83D\uDE00");
        }

        @ParameterizedTest(name = "source \"{0}\"")
        @ValueSource(strings = {"not a uri", "/orders service", "http://exa mple.com", "%zz", "orders^service", "\\x"})
        @DisplayName("a source that is not a URI reference")
        void sourceNotAUri(String value) {
            assertRejected(b -> b.source(value), "source", "not a URI reference", "CloudEvents");
        }

        @ParameterizedTest(name = "source \"{0}\"")
        @ValueSource(
                strings = {
                    "/orders-service",
                    "urn:example:orders",
                    "https://example.com/orders",
                    "orders",
                    "//host/path",
                    "mailto:ops@example.com"
                })
        @DisplayName("(but not) a URI reference as the source")
        void uriSourcesPass(String value) {
            assertThat(valid().source(value).build().source()).isEqualTo(value);
        }

        @Test
        @DisplayName("headers that take more than MAX_HEADERS_BYTES together, so the envelope stays bounded")
        void headersTooLargeTogether() {
            OutboxEvent.Builder builder = valid();
            for (int n = 0; n < 9; n++) { // 9 x (5 + 4096 + 8) bytes > 32 KiB
                builder.header("h" + String.format("%04d", n), "v".repeat(OutboxEvent.MAX_HEADER_VALUE_LENGTH));
            }
            assertThatThrownBy(builder::build)
                    .isInstanceOfSatisfying(
                            InvalidEventException.class,
                            e -> assertThat(e.field()).isEqualTo("headers"))
                    .hasMessageContaining("maximum of 32768");
        }

        @Test
        @DisplayName("(but not) headers of exactly MAX_HEADERS_BYTES, counting UTF-8 bytes")
        void headersAtTheLimit() {
            OutboxEvent.Builder builder = valid();
            int left = OutboxEvent.MAX_HEADERS_BYTES;
            for (int n = 0; left > 0; n++) {
                String name = "h" + String.format("%04d", n);
                int value = Math.min(
                        OutboxEvent.MAX_HEADER_VALUE_LENGTH, left - name.length() - OutboxEvent.HEADER_OVERHEAD_BYTES);
                builder.header(name, "v".repeat(value));
                left -= name.length() + value + OutboxEvent.HEADER_OVERHEAD_BYTES;
            }
            assertThat(builder.build().headers()).isNotEmpty();
            assertThatThrownBy(builder.header("one", "\u20ac")::build).isInstanceOf(InvalidEventException.class);
        }

        @Test
        @DisplayName("the default payload limit plus the envelope reserve fits Kafka's default max.request.size")
        void defaultFitsKafka() {
            assertThat(OutboxEvent.maxEncodedBytes(OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES))
                    .isEqualTo(1024 * 1024);
        }

        @Test
        @DisplayName("null headers")
        void nullHeaders() {
            assertThatThrownBy(() -> valid().headers(null))
                    .isInstanceOfSatisfying(
                            InvalidEventException.class,
                            e -> assertThat(e.field()).isEqualTo("headers"))
                    .hasMessageContaining("null");
        }

        @ParameterizedTest(name = "availableAt {0}")
        @ValueSource(
                strings = {
                    "+1000000000-12-31T23:59:59.999999999Z",
                    "-1000000000-01-01T00:00:00Z",
                    "+10000-01-01T00:00:00Z",
                    "0000-12-31T23:59:59Z"
                })
        @DisplayName("a time the outbox cannot store")
        void unstorableAvailableAt(String value) {
            assertRejected(b -> b.availableAt(Instant.parse(value)), "availableAt", "outside the range");
        }

        @Test
        @DisplayName("Instant.MAX and Instant.MIN as availableAt")
        void instantMax() {
            assertRejected(b -> b.availableAt(Instant.MAX), "availableAt", "outside the range");
            assertRejected(b -> b.availableAt(Instant.MIN), "availableAt", "outside the range");
        }

        @Test
        @DisplayName("(but not) the first and last instants of years 1 to 9999")
        void storableBoundsPass() {
            Instant last = Instant.parse("9999-12-31T23:59:59.999999Z");
            assertThat(valid().availableAt(last).build().nextAttemptAt()).isEqualTo(last);
            Instant first = Instant.parse("0001-01-01T00:00:00Z");
            assertThat(valid().availableAt(first).build().nextAttemptAt()).isEqualTo(first);
        }
    }

    @Nested
    @DisplayName("the CloudEvents subject and dataschema")
    class SubjectAndDataSchema {

        @Test
        @DisplayName("are absent by default and kept when set")
        void keptWhenSet() {
            assertThat(valid().build().subject()).isEmpty();
            assertThat(valid().build().dataSchema()).isEmpty();
            OutboxEvent event = valid().subject("order-42")
                    .dataSchema("https://example.com/schemas/order-placed-v1.json")
                    .build();
            assertThat(event.subject()).contains("order-42");
            assertThat(event.dataSchema()).contains("https://example.com/schemas/order-placed-v1.json");
            assertThat(event.withSequence(7).subject()).contains("order-42");
            assertThat(event.withHeaders(Map.of("a", "b")).dataSchema()).isEqualTo(event.dataSchema());
        }

        @Test
        @DisplayName("are part of the value")
        void partOfEquality() {
            UUID id = UUID.randomUUID();
            assertThat(valid().id(id).subject("a").build())
                    .isNotEqualTo(valid().id(id).subject("b").build());
        }

        @Test
        @DisplayName("a blank, over-long or NUL-bearing subject is refused, naming 'subject'")
        void badSubject() {
            assertRejected(b -> b.subject(" "), "subject", "blank");
            assertRejected(b -> b.subject("s".repeat(OutboxEvent.MAX_SUBJECT_LENGTH + 1)), "subject", "maximum");
            assertRejected(b -> b.subject("order\0"), "subject", "NUL");
        }

        @ParameterizedTest(name = "dataschema \"{0}\"")
        @ValueSource(strings = {"/schemas/order.json", "order-v1", "not a uri", "https://exa mple.com/s"})
        @DisplayName("a dataschema that is not an absolute URI is refused, naming 'dataSchema'")
        void badDataSchema(String value) {
            assertRejected(b -> b.dataSchema(value), "dataSchema", "URI");
        }
    }

    @Nested
    @DisplayName("ids")
    class Ids {

        @Test
        @DisplayName("are version 7 UUIDs with the IETF variant")
        void areVersion7() {
            for (int i = 0; i < 100; i++) {
                UUID id = valid().build().id();
                assertThat(id.version()).isEqualTo(7);
                assertThat(id.variant()).isEqualTo(2);
            }
        }

        @Test
        @DisplayName("carry the clock's milliseconds as their timestamp")
        void carryClockTime() {
            // Far ahead of any other clock used in this JVM, so the generator's monotonic state does not bump it.
            ManualClock future = new ManualClock(Instant.parse("2200-01-01T00:00:00Z"));
            UUID id = valid().clock(future).build().id();
            assertThat(UuidV7.timestampMillis(id)).isEqualTo(future.millis());
        }

        @Test
        @DisplayName("are strictly increasing from one clock, even when it stands still")
        void strictlyIncreasingWhenClockStandsStill() {
            List<UUID> ids = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) { // more than the 4096 ids of one millisecond's counter
                ids.add(valid().build().id());
            }
            for (int i = 1; i < ids.size(); i++) {
                assertThat(ids.get(i)).as("id %d after id %d", i, i - 1).isGreaterThan(ids.get(i - 1));
            }
        }

        @Test
        @DisplayName("sort in creation order as the clock moves on")
        void timeOrdered() {
            List<UUID> ids = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                ids.add(valid().build().id());
                clock.advance(Duration.ofMillis(i % 3));
            }
            assertThat(ids).isSortedAccordingTo(UUID::compareTo).doesNotHaveDuplicates();
        }

        @Test
        @DisplayName("are unique")
        void unique() {
            List<UUID> ids = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) {
                ids.add(valid().build().id());
            }
            assertThat(ids).doesNotHaveDuplicates();
        }
    }

    @Nested
    @DisplayName("the payload")
    class Payload {

        @Test
        @DisplayName("is copied from the caller's array, so later changes to it do not leak in")
        void copiedOnWayIn() {
            byte[] bytes = {1, 2, 3};
            OutboxEvent.Builder builder = valid().payload(bytes);
            bytes[0] = 9;
            OutboxEvent event = builder.build();
            bytes[1] = 9;
            assertThat(event.payload()).containsExactly(1, 2, 3);
        }

        @Test
        @DisplayName("is copied on the way out, so a caller cannot change the event")
        void copiedOnWayOut() {
            OutboxEvent event = valid().payload(new byte[] {1, 2, 3}).build();
            event.payload()[0] = 9;
            assertThat(event.payload()).containsExactly(1, 2, 3);
            assertThat(event.payloadSize()).isEqualTo(3);
        }

        @Test
        @DisplayName("is copied when restoring, too")
        void copiedOnRestore() {
            byte[] bytes = {1, 2, 3};
            OutboxEvent event = OutboxEvent.restore()
                    .id(UUID.randomUUID())
                    .type("t")
                    .destination("d")
                    .payload(bytes)
                    .nextAttemptAt(clock.instant())
                    .createdAt(clock.instant())
                    .build();
            bytes[0] = 9;
            assertThat(event.payload()).containsExactly(1, 2, 3);
        }
    }

    @Nested
    @DisplayName("as a value")
    class AsValue {

        @Test
        @DisplayName("equals another with the same fields, comparing payload bytes by content")
        void equality() {
            UUID id = UUID.randomUUID();
            OutboxEvent a = valid().id(id).payload(new byte[] {1, 2}).build();
            OutboxEvent b = valid().id(id).payload(new byte[] {1, 2}).build();
            OutboxEvent c = valid().id(id).payload(new byte[] {1, 3}).build();
            assertThat(a).isEqualTo(b).hasSameHashCodeAs(b).isNotEqualTo(c);
        }

        @Test
        @DisplayName("headers cannot be changed after building")
        void headersImmutable() {
            OutboxEvent event = valid().header("tenant", "acme").build();
            assertThatThrownBy(() -> event.headers().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
        }

        @Test
        @DisplayName("withDelivery changes the delivery state and keeps identity and content")
        void withDelivery() {
            OutboxEvent event = valid().key("k").build().withSequence(7);
            UUID lease = UUID.randomUUID();
            Instant at = clock.instant().plusSeconds(1);
            OutboxEvent leased = event.withDelivery(
                    EventStatus.IN_FLIGHT,
                    2,
                    Optional.of("boom"),
                    at,
                    Optional.of(at),
                    Optional.of(lease),
                    Optional.empty());
            assertThat(leased.status()).isEqualTo(EventStatus.IN_FLIGHT);
            assertThat(leased.attempts()).isEqualTo(2);
            assertThat(leased.leaseId()).contains(lease);
            assertThat(leased.id()).isEqualTo(event.id());
            assertThat(leased.key()).isEqualTo(event.key());
            assertThat(leased.payload()).isEqualTo(event.payload());
            assertThat(leased.sequence()).isEqualTo(7);
            assertThat(leased.createdAt()).isEqualTo(event.createdAt());
        }

        @Test
        @DisplayName("toString shows the id, type and size but not the payload")
        void toStringOmitsPayload() {
            OutboxEvent event =
                    valid().payload("secret".getBytes(StandardCharsets.UTF_8)).build();
            assertThat(event.toString())
                    .contains(event.id().toString(), "order.placed", "6 bytes")
                    .doesNotContain("secret");
        }
    }

    @Nested
    @DisplayName("a payload given as an object and a serializer")
    class SerializedPayloads {

        record OrderPlaced(String orderId) {}

        private final PayloadSerializer text = (destination, value) ->
                new SerializedPayload((destination + ":" + value).getBytes(StandardCharsets.UTF_8), "text/plain");

        @Test
        @DisplayName(
                "is serialized at build with the event's destination, and the serializer's media type is the content type")
        void serializedAtBuild() {
            OutboxEvent event = valid().payload(new OrderPlaced("42"), text).build();

            assertThat(new String(event.payload(), StandardCharsets.UTF_8)).isEqualTo("orders:OrderPlaced[orderId=42]");
            assertThat(event.contentType()).isEqualTo("text/plain");
        }

        @Test
        @DisplayName("a serializer that fails is an invalid payload that names the class and keeps the cause")
        void failingSerializer() {
            IllegalStateException boom = new IllegalStateException("no schema");
            assertRejected(
                    builder -> builder.payload(new OrderPlaced("42"), (destination, value) -> {
                        throw boom;
                    }),
                    "payload",
                    OrderPlaced.class.getName(),
                    "no schema");
            assertThatThrownBy(valid().payload(new OrderPlaced("42"), (destination, value) -> {
                        throw boom;
                    })::build)
                    .hasCause(boom);
        }

        @Test
        @DisplayName("bytes set afterwards replace the object, and the object set afterwards replaces the bytes")
        void lastOneWins() {
            assertThat(valid().payload(new OrderPlaced("1"), text)
                            .payload(new byte[] {7})
                            .build()
                            .payload())
                    .containsExactly(7);
            assertThat(valid().payload(new OrderPlaced("1"), text).build().contentType())
                    .isEqualTo("text/plain");
        }
    }
}
