package dev.outboxjava.it.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.outboxjava.testkit.kafka.KafkaExtension;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqExtension;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

/**
 * Runs a test class that uses the RabbitMQ and Kafka extensions through the JUnit Platform, then looks
 * at what it left behind: nothing.
 */
@DisplayName("RabbitMqExtension and KafkaExtension clean up")
class FixtureCleanupIT {

    static volatile String exchange;
    static volatile KafkaFixture kafkaUsed;

    /** Run only through the launcher below (an inner class: Surefire and Failsafe skip it). */
    static class UsesTheExtensions {

        @RegisterExtension
        static final RabbitMqExtension rabbit = new RabbitMqExtension();

        @RegisterExtension
        static final KafkaExtension kafka = new KafkaExtension();

        @Test
        void makesDestinations() {
            var destination = rabbit.newDestination("cleanup");
            exchange = destination.exchange();
            kafka.newTopic("cleanup", 1);
            kafkaUsed = kafka.fixture();
        }
    }

    @Test
    @DisplayName(
            "after the class its exchange and queue are deleted, and at the end of the run the fixtures stop what they started")
    void nothingLeftBehind() throws Exception {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();

        LauncherFactory.create()
                .execute(
                        LauncherDiscoveryRequestBuilder.request()
                                .selectors(selectClass(UsesTheExtensions.class))
                                .build(),
                        listener);

        assertThat(listener.getSummary().getTestsSucceededCount()).isEqualTo(1);
        assertThat(exchange).isNotNull();
        try (RabbitMqFixture rabbit = RabbitMqFixture.start()) {
            assertThat(rabbit.exchangeExists(exchange))
                    .as("exchange %s", exchange)
                    .isFalse();
        }
        kafkaUsed
                .embeddedBroker()
                .ifPresent(broker -> assertThat(broker.isRunning())
                        .as("the embedded Kafka broker of the run")
                        .isFalse());
    }
}
