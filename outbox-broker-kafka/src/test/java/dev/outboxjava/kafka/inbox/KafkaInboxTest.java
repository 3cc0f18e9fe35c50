package dev.outboxjava.kafka.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.inbox.InMemoryInbox;
import dev.outboxjava.core.inbox.InboxKey;
import dev.outboxjava.core.inbox.InboxResult;
import dev.outboxjava.core.inbox.UnidentifiableMessageException;
import dev.outboxjava.core.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Kafka inbox: the CloudEvents id of a record")
class KafkaInboxTest {

    private final InMemoryInbox<InboxKey> memory = InMemoryInbox.create(ManualClock.startingAtEpochOf2024());
    private final KafkaInbox<InboxKey> inbox = KafkaInbox.of(memory, "shipping");
    private final AtomicInteger effects = new AtomicInteger();

    private static ConsumerRecord<String, byte[]> record(long offset, String... ceIds) {
        ConsumerRecord<String, byte[]> record = new ConsumerRecord<>("orders", 3, offset, "key", new byte[0]);
        for (String id : ceIds) {
            record.headers().add(KafkaInbox.CLOUD_EVENTS_ID_HEADER, id.getBytes(StandardCharsets.UTF_8));
        }
        return record;
    }

    @Test
    @DisplayName("reads the id from the ce_id header (the last one when repeated); none when absent or empty")
    void messageId() {
        assertThat(KafkaInbox.messageId(record(0, "0191-a"))).contains("0191-a");
        assertThat(KafkaInbox.messageId(record(0, "first", "second"))).contains("second");
        assertThat(KafkaInbox.messageId(record(0))).isEmpty();
        assertThat(KafkaInbox.messageId(record(0, ""))).isEmpty();
    }

    @Test
    @DisplayName("a redelivered record (same ce_id, any offset) is a duplicate")
    void redeliveryIsDuplicate() {
        assertThat(inbox.process(record(7, "id-1"), key -> effects.incrementAndGet()))
                .isEqualTo(InboxResult.PROCESSED);
        assertThat(inbox.process(record(9, "id-1"), key -> effects.incrementAndGet()))
                .isEqualTo(InboxResult.DUPLICATE);

        assertThat(effects).hasValue(1);
        assertThat(memory.isProcessed("shipping", "id-1")).isTrue();
    }

    @Test
    @DisplayName("a record without ce_id is refused, naming topic, partition and offset; the work does not run")
    void missingId() {
        assertThatThrownBy(() -> inbox.process(record(42), key -> effects.incrementAndGet()))
                .isInstanceOf(UnidentifiableMessageException.class)
                .hasMessageContaining("orders-3@42")
                .hasMessageContaining("ce_id");
        assertThat(effects).hasValue(0);
    }

    @Test
    @DisplayName("a blank consumer name is refused when the helper is made")
    void consumerName() {
        assertThatThrownBy(() -> KafkaInbox.of(memory, " "))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("inbox.consumerName");
    }
}
