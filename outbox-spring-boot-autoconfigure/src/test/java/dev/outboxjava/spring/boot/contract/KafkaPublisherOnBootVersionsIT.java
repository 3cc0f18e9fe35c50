package dev.outboxjava.spring.boot.contract;

import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.testkit.contract.PublisherContract;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The Kafka publisher passes its contract unchanged on the Kafka clients Spring Boot manages (older than
 * the ones the project builds with), which is what it runs on in a Spring Boot service.
 */
class KafkaPublisherOnBootVersionsIT extends PublisherContract {

    private static KafkaFixture kafka;
    private static KafkaPublisher publisher;

    @BeforeAll
    static void start() {
        kafka = KafkaFixture.start();
        publisher = KafkaPublisher.create(KafkaPublisherConfig.builder().bootstrapServers(kafka.bootstrapServers())
                .build());
    }

    @AfterAll
    static void stop() {
        if (publisher != null) {
            publisher.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Override
    protected Publisher publisher() {
        return publisher;
    }

    @Override
    protected String newDestination() {
        return kafka.createTopic("contract", 3);
    }

    @Override
    protected List<ReceivedMessage> consume(String destination, int expected, Duration timeout) {
        return kafka.consume(destination, expected, timeout).stream().map(KafkaPublisherOnBootVersionsIT::received)
                .toList();
    }

    /** A record as a consumer sees it: the CloudEvents binary-mode headers, the event's own, the payload. */
    private static ReceivedMessage received(ConsumerRecord<String, byte[]> record) {
        Map<String, String> own = new HashMap<>();
        Map<String, String> attributes = new HashMap<>();
        for (Header header : record.headers()) {
            String name = header.key().toLowerCase(Locale.ROOT);
            String value = new String(header.value(), StandardCharsets.UTF_8);
            if (name.startsWith("ce_")) {
                attributes.put(name.substring("ce_".length()), value);
            } else if (name.equals("content-type")) {
                attributes.put("datacontenttype", value);
            } else {
                own.put(header.key(), value);
            }
        }
        return new ReceivedMessage(attributes.get("id"), attributes.get("type"), attributes.get("source"),
                Optional.ofNullable(record.key()), attributes.get("datacontenttype"), own,
                record.value() == null ? new byte[0] : record.value(), attributes);
    }
}
