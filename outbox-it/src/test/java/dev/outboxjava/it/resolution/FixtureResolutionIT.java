package dev.outboxjava.it.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxjava.testkit.fixture.DockerAvailability;
import dev.outboxjava.testkit.fixture.LocalPort;
import dev.outboxjava.testkit.fixture.ServiceConfig;
import dev.outboxjava.testkit.fixture.ServiceOrigin;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Which service each fixture picks. On a machine like the build machine (no Docker, PostgreSQL and
 * RabbitMQ on their default ports) the answer with no settings is LOCAL, LOCAL and EMBEDDED; the
 * tests assume that situation and are skipped elsewhere. Explicit settings are set as system
 * properties for one test and restored afterwards.
 */
@DisplayName("Fixture resolution")
class FixtureResolutionIT {

    private static void assumeNothingConfigured(String property) {
        assumeFalse(ServiceConfig.lookup(property).isPresent(), property + " is set");
        assumeFalse(ServiceConfig.isTrue(ServiceConfig.SKIP_LOCAL), "outbox.test.skip-local is set");
        assumeFalse(DockerAvailability.isAvailable(), "a Docker engine is reachable: Testcontainers wins");
    }

    @Nested
    @DisplayName("with no settings")
    class NoSettings {

        @Test
        @DisplayName("PostgreSQL is the local server on 127.0.0.1:5432, database test")
        void postgresLocal() throws Exception {
            assumeNothingConfigured(PostgresFixture.URL_PROPERTY);
            assumeTrue(LocalPort.isOpen("127.0.0.1", 5432, 500), "no PostgreSQL on 127.0.0.1:5432");

            try (PostgresFixture postgres = PostgresFixture.start()) {
                assertThat(postgres.origin()).isEqualTo(ServiceOrigin.LOCAL);
                assertThat(postgres.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/test");
                assertThat(RoundTrips.postgres(postgres)).isEqualTo("test");
            }
        }

        @Test
        @DisplayName("RabbitMQ is the local broker on 127.0.0.1:5672")
        void rabbitLocal() throws Exception {
            assumeNothingConfigured(RabbitMqFixture.URI_PROPERTY);
            assumeTrue(LocalPort.isOpen("127.0.0.1", 5672, 500), "no AMQP broker on 127.0.0.1:5672");

            try (RabbitMqFixture rabbit = RabbitMqFixture.start()) {
                assertThat(rabbit.origin()).isEqualTo(ServiceOrigin.LOCAL);
                assertThat(rabbit.port()).isEqualTo(RabbitMqFixture.LOCAL_PORT);
                RoundTrips.amqp(rabbit);
            }
        }

        @Test
        @DisplayName("Kafka is an embedded KRaft broker in this JVM (there is no local default for Kafka)")
        void kafkaEmbedded() throws Exception {
            assumeNothingConfigured(KafkaFixture.BOOTSTRAP_SERVERS_PROPERTY);

            try (KafkaFixture kafka = KafkaFixture.start()) {
                assertThat(kafka.origin()).isEqualTo(ServiceOrigin.EMBEDDED);
                assertThat(kafka.embeddedBroker()).isPresent();
                RoundTrips.kafka(kafka);
            }
        }
    }

    @Nested
    @DisplayName("with explicit settings pointing elsewhere")
    class Explicit {

        @Test
        @DisplayName("PostgreSQL uses the JDBC URL given, with its database and options")
        void postgresExplicit() throws Exception {
            assumeTrue(LocalPort.isOpen("127.0.0.1", 5432, 500), "no PostgreSQL on 127.0.0.1:5432 to point at");
            String applicationName =
                    "outbox-explicit-" + UUID.randomUUID().toString().substring(0, 8);
            String url = "jdbc:postgresql://127.0.0.1:5432/postgres?ApplicationName=" + applicationName;

            try (TemporarySystemProperties properties = new TemporarySystemProperties()
                            .set(PostgresFixture.URL_PROPERTY, url)
                            .set(PostgresFixture.USER_PROPERTY, "postgres");
                    PostgresFixture postgres = PostgresFixture.start()) {
                assertThat(postgres.origin()).isEqualTo(ServiceOrigin.EXPLICIT);
                assertThat(postgres.jdbcUrl()).isEqualTo(url);
                assertThat(RoundTrips.postgres(postgres))
                        .as("the database named in the URL")
                        .isEqualTo("postgres");
                try (Connection connection = postgres.dataSource().getConnection();
                        Statement statement = connection.createStatement();
                        ResultSet row = statement.executeQuery("SELECT current_setting('application_name')")) {
                    row.next();
                    assertThat(row.getString(1)).as("an option of the URL").isEqualTo(applicationName);
                }
            }
        }

        @Test
        @DisplayName("RabbitMQ uses the AMQP URI given, with its port and virtual host")
        void rabbitExplicit() throws Exception {
            // "elsewhere": a second broker on an ephemeral port, whose virtual host is named "default"
            RabbitMqFixture elsewhere;
            try (TemporarySystemProperties properties =
                    new TemporarySystemProperties().set(ServiceConfig.SKIP_LOCAL, "true")) {
                elsewhere = RabbitMqFixture.start();
            }
            try (elsewhere) {
                assertThat(elsewhere.origin()).isEqualTo(ServiceOrigin.EMBEDDED);
                String uri = "amqp://guest:guest@127.0.0.1:" + elsewhere.port() + "/default";

                try (TemporarySystemProperties properties =
                                new TemporarySystemProperties().set(RabbitMqFixture.URI_PROPERTY, uri);
                        RabbitMqFixture rabbit = RabbitMqFixture.start()) {
                    assertThat(rabbit.origin()).isEqualTo(ServiceOrigin.EXPLICIT);
                    assertThat(rabbit.port()).isEqualTo(elsewhere.port()).isNotEqualTo(RabbitMqFixture.LOCAL_PORT);
                    assertThat(rabbit.virtualHost()).isEqualTo("default");
                    RoundTrips.amqp(rabbit);
                }
            }
        }

        @Test
        @DisplayName("Kafka uses the bootstrap servers given and leaves that cluster running")
        void kafkaExplicit() throws Exception {
            try (EmbeddedKafkaBroker cluster = EmbeddedKafkaBroker.start()) {
                try (TemporarySystemProperties properties = new TemporarySystemProperties()
                                .set(KafkaFixture.BOOTSTRAP_SERVERS_PROPERTY, cluster.bootstrapServers());
                        KafkaFixture kafka = KafkaFixture.start()) {
                    assertThat(kafka.origin()).isEqualTo(ServiceOrigin.EXPLICIT);
                    assertThat(kafka.bootstrapServers()).isEqualTo(cluster.bootstrapServers());
                    assertThat(kafka.embeddedBroker()).isEmpty();
                    RoundTrips.kafka(kafka);
                }
                assertThat(cluster.isRunning())
                        .as("a cluster the fixture did not start is not stopped")
                        .isTrue();
            }
        }
    }
}
