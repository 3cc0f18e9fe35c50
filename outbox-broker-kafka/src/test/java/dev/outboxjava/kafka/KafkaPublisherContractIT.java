package dev.outboxjava.kafka;

import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.testkit.contract.PublisherContract;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.KafkaMessageFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The testkit's publisher contract against a real Kafka broker (see {@link KafkaFixture}). Public, so that the
 * Spring Boot module runs it again on the Kafka clients Boot manages.
 */
public class KafkaPublisherContractIT extends PublisherContract {

    @RegisterExtension
    static final KafkaWithPublisher kafka = new KafkaWithPublisher();

    @Override
    protected Publisher publisher() {
        return kafka.publisher();
    }

    @Override
    protected String newDestination() {
        return kafka.fixture().createTopic("contract", 3);
    }

    @Override
    protected List<ReceivedMessage> consume(String destination, int expected, Duration timeout) {
        return kafka.fixture().consume(destination, expected, timeout).stream()
                .map(KafkaPublisherContractIT::received)
                .toList();
    }

    /** Reads a record as a CloudEvents SDK consumer would, then reduces it to what the contract compares. */
    static ReceivedMessage received(ConsumerRecord<String, byte[]> record) {
        CloudEvent event = KafkaMessageFactory.createReader(record).toEvent();
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
        return new ReceivedMessage(
                event.getId(),
                event.getType(),
                event.getSource().toString(),
                Optional.ofNullable(record.key()),
                event.getDataContentType(),
                own,
                event.getData() == null ? new byte[0] : event.getData().toBytes(),
                attributes);
    }
}
