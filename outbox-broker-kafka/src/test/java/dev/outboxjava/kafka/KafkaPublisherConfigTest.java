package dev.outboxjava.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.InvalidConfigurationException;
import java.time.Duration;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KafkaPublisherConfigTest {

    private static KafkaPublisherConfig.Builder valid() {
        return KafkaPublisherConfig.builder().bootstrapServers("broker:9092");
    }

    private static void assertRefused(KafkaPublisherConfig.Builder builder, String property, String reasonPart) {
        assertThatThrownBy(builder::build)
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
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
            KafkaPublisherConfig config = valid().property("acks", "-1").property("enable.idempotence", "true")
                    .property("retries", 3).property("max.in.flight.requests.per.connection", 1).build();

            assertThat(config.producerProperties()).containsEntry("acks", "all")
                    .containsEntry("max.in.flight.requests.per.connection", 1).containsEntry("retries", 3);
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
            assertThat(valid().property("linger.ms", 20).property("compression.type", "zstd").build()
                    .producerProperties()).containsEntry("linger.ms", 20).containsEntry("compression.type", "zstd");
        }

        @Test
        @DisplayName("max.block.ms is exposed as a duration")
        void maxBlock() {
            assertThat(valid().property("max.block.ms", "2500").build().maxBlock()).isEqualTo(Duration.ofMillis(2500));
        }

        @Test
        @DisplayName("other producer properties pass through; secrets are hidden in toString")
        void passThrough() {
            KafkaPublisherConfig config = valid().property("security.protocol", "SASL_SSL")
                    .property("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule "
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
            assertRefused(valid().property("max.in.flight.requests.per.connection", value),
                    "max.in.flight.requests.per.connection", "between 1 and 5");
        }

        @Test
        @DisplayName("serializers, which the publisher owns")
        void serializers() {
            assertRefused(valid().property("value.serializer", StringSerializer.class.getName()), "value.serializer",
                    "set by the publisher");
            assertRefused(valid().property("key.serializer", StringSerializer.class.getName()), "key.serializer",
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
            assertRefused(valid().property("delivery.timeout.ms", 1000).property("request.timeout.ms", 5000),
                    "delivery.timeout.ms", "at least linger.ms + request.timeout.ms");
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
    }
}
