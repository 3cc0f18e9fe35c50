package dev.outboxjava.it.resolution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.testkit.kafka.KafkaExtension;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqExtension;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The RabbitMQ and Kafka extensions hand a class a working broker and fresh destinations. */
@DisplayName("RabbitMqExtension and KafkaExtension")
class FixtureExtensionsIT {

    @RegisterExtension
    static final RabbitMqExtension rabbit = new RabbitMqExtension();

    @RegisterExtension
    static final KafkaExtension kafka = new KafkaExtension();

    @Test
    @DisplayName("a new destination is a declared exchange with its queue, usable at once")
    void rabbitDestination() throws Exception {
        RabbitMqDestination destination = rabbit.newDestination("extension");

        assertThat(rabbit.fixture().exchangeExists(destination.exchange())).isTrue();
        RoundTrips.amqp(rabbit.fixture());
    }

    @Test
    @DisplayName("a new topic exists with the partitions asked for")
    void kafkaTopic() throws Exception {
        String topic = kafka.newTopic("extension", 3);

        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.fixture().bootstrapServers()))) {
            int partitions = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions()
                    .size();
            assertThat(partitions).isEqualTo(3);
        }
        RoundTrips.kafka(kafka.fixture());
    }
}
