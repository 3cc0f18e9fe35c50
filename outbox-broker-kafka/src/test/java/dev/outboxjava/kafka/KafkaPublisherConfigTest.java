package dev.outboxjava.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.OutboxEvent;
import java.time.Duration;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KafkaPublisherConfigTest {

    @Test
    @DisplayName("takes the bootstrap servers as a list, as Spring Boot's KafkaProperties hands them")
    void bootstrapServersAsAList() {
        KafkaPublisherConfig config = KafkaPublisherConfig.builder()
                .property("bootstrap.servers", java.util.List.of("kafka-1:9092", "kafka-2:9092"))
                .build();

        assertThat(config.bootstrapServers()).isEqualTo("kafka-1:9092,kafka-2:9092");
    }

    private static KafkaPublisherConfig.Builder valid() {
        return KafkaPublisherConfig.builder().bootstrapServers("broker:9092");
    }

    private static void assertRefused(KafkaPublisherConfig.Builder builder, String property, String reasonPart) {
        assertThatThrownBy(builder::build)
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo(property))
                .hasMessageContaining(property)
                .hasMessageContaining(reasonPart);
    }

    @Nested
    @DisplayName("what the library insists on")
    class Forced {

        @Test
        @DisplayName("acks=all and the idempotent producer are always on")
        void safeDelivery() {
            KafkaPublisherConfig config = valid().build();

            assertThat(config.producerProperties())
                    .containsEntry("acks", "all")
                    .containsEntry("enable.idempotence", true)
                    .containsEntry("key.serializer", StringSerializer.class)
                    .containsEntry("value.serializer", ByteArraySerializer.class);
        }

        @Test
        @DisplayName("the safe values, when a user spells them out, are accepted")
        void explicitSafeValues() {
            KafkaPublisherConfig config = valid().property("acks", "-1")
                    .property("enable.idempotence", "true")
                    .property("retries", 3)
                    .property("max.in.flight.requests.per.connection", 1)
                    .build();

            assertThat(config.producerProperties())
                    .containsEntry("acks", "all")
                    .containsEntry("max.in.flight.requests.per.connection", 1)
                    .containsEntry("retries", 3);
        }

        @Test
        @DisplayName("throughput defaults apply unless the user overrides them")
        void defaults() {
            assertThat(valid().build().producerProperties())
                    .containsEntry("linger.ms", KafkaPublisherConfig.DEFAULT_LINGER_MS)
                    .containsEntry("batch.size", KafkaPublisherConfig.DEFAULT_BATCH_SIZE_BYTES)
                    .containsEntry("compression.type", "none")
                    .containsEntry("max.in.flight.requests.per.connection", 5)
                    .containsEntry("max.block.ms", KafkaPublisherConfig.DEFAULT_MAX_BLOCK_MS)
                    .containsEntry("client.id", "outbox-publisher");
            assertThat(valid().property("linger.ms", 20)
                            .property("compression.type", "zstd")
                            .build()
                            .producerProperties())
                    .containsEntry("linger.ms", 20)
                    .containsEntry("compression.type", "zstd");
        }

        @Test
        @DisplayName("max.block.ms is exposed as a duration")
        void maxBlock() {
            assertThat(valid().property("max.block.ms", "2500").build().maxBlock())
                    .isEqualTo(Duration.ofMillis(2500));
        }

        @Test
        @DisplayName("other producer properties pass through; secrets are hidden in toString")
        void passThrough() {
            KafkaPublisherConfig config = valid().property("security.protocol", "SASL_SSL")
                    .property(
                            "sasl.jaas.config",
                            "org.apache.kafka.common.security.plain.PlainLoginModule "
                                    + "required username=\"u\" password=\"secret\";")
                    .build();

            assertThat(config.producerProperties()).containsEntry("security.protocol", "SASL_SSL");
            assertThat(config.toString()).contains("SASL_SSL").doesNotContain("secret");
        }
    }

    @Nested
    @DisplayName("settings that could lose or reorder events are refused, naming the Kafka property")
    class Refused {

        @ParameterizedTest
        @ValueSource(strings = {"0", "1"})
        @DisplayName("acks other than all")
        void acks(String acks) {
            assertRefused(valid().property("acks", acks), "acks", "could lose events");
        }

        @Test
        @DisplayName("enable.idempotence=false")
        void idempotenceOff() {
            assertRefused(valid().property("enable.idempotence", false), "enable.idempotence", "reorder");
        }

        @Test
        @DisplayName("retries=0")
        void noRetries() {
            assertRefused(valid().property("retries", 0), "retries", "at least 1");
        }

        @ParameterizedTest
        @ValueSource(ints = {0, 6, 100})
        @DisplayName("max.in.flight.requests.per.connection outside 1..5")
        void inFlight(int value) {
            assertRefused(
                    valid().property("max.in.flight.requests.per.connection", value),
                    "max.in.flight.requests.per.connection",
                    "between 1 and 5");
        }

        @Test
        @DisplayName("serializers, which the publisher owns")
        void serializers() {
            assertRefused(
                    valid().property("value.serializer", StringSerializer.class.getName()),
                    "value.serializer",
                    "set by the publisher");
            assertRefused(
                    valid().property("key.serializer", StringSerializer.class.getName()),
                    "key.serializer",
                    "set by the publisher");
        }

        @Test
        @DisplayName("transactional.id")
        void transactions() {
            assertRefused(valid().property("transactional.id", "tx-1"), "transactional.id", "not supported");
        }

        @Test
        @DisplayName("a value Kafka itself rejects")
        void kafkaRejects() {
            assertRefused(valid().property("linger.ms", "soon"), "linger.ms", "Kafka rejects the value");
            assertRefused(valid().property("compression.type", "rar"), "compression.type", "Kafka rejects the value");
        }

        @Test
        @DisplayName("a delivery timeout shorter than linger plus request timeout")
        void deliveryTimeout() {
            assertRefused(
                    valid().property("delivery.timeout.ms", 1000).property("request.timeout.ms", 5000),
                    "delivery.timeout.ms",
                    "at least linger.ms + request.timeout.ms");
        }

        @Test
        @DisplayName("missing bootstrap servers")
        void bootstrapRequired() {
            assertRefused(KafkaPublisherConfig.builder(), "bootstrap.servers", "is required");
            assertRefused(KafkaPublisherConfig.builder().bootstrapServers(" "), "bootstrap.servers", "is required");
        }

        @Test
        @DisplayName("a non-positive health check timeout")
        void healthTimeout() {
            assertRefused(valid().healthCheckTimeout(Duration.ZERO), "healthCheckTimeout", "positive");
        }

        @Test
        @DisplayName("a max.request.size below the largest event the builder accepts, naming the size it needs")
        void requestSizeTooSmall() {
            long needed = OutboxEvent.maxEncodedBytes(OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES);
            assertRefused(valid().property("max.request.size", 512 * 1024), "max.request.size", "at least " + needed);
        }

        @Test
        @DisplayName("a payload limit raised on the publisher alone, beyond Kafka's default max.request.size")
        void payloadLimitBeyondDefaults() {
            assertRefused(valid().maxPayloadBytes(1024 * 1024), "max.request.size", "maxPayloadBytes 1048576");
        }

        @Test
        @DisplayName("a buffer.memory below the largest event")
        void bufferTooSmall() {
            assertRefused(valid().property("buffer.memory", 100_000), "buffer.memory", "at least");
        }
    }

    @Nested
    @DisplayName("size limits that agree")
    class SizeLimits {

        @Test
        @DisplayName("Kafka's default max.request.size holds the largest event of the builder's default payload limit")
        void defaultsAgree() {
            KafkaPublisherConfig config = valid().build();
            assertThat(config.maxPayloadBytes()).isEqualTo(OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES);
            assertThat(OutboxEvent.maxEncodedBytes(OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES))
                    .isLessThanOrEqualTo(1024 * 1024);
        }

        @Test
        @DisplayName("a raised payload limit is accepted with a max.request.size and buffer.memory that hold it")
        void raisedTogether() {
            int payload = 4 * 1024 * 1024;
            long needed = OutboxEvent.maxEncodedBytes(payload);
            assertThat(valid().maxPayloadBytes(payload)
                            .property("max.request.size", (int) needed)
                            .build()
                            .maxPayloadBytes())
                    .isEqualTo(payload);
        }
    }
}
