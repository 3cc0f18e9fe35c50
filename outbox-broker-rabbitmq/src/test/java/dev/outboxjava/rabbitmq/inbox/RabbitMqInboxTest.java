package dev.outboxjava.rabbitmq.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.LongStringHelper;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.inbox.InMemoryInbox;
import dev.outboxjava.core.inbox.InboxKey;
import dev.outboxjava.core.inbox.UnidentifiableMessageException;
import dev.outboxjava.core.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RabbitMQ inbox: the id of a message")
class RabbitMqInboxTest {

    private final InMemoryInbox<InboxKey> memory = InMemoryInbox.create(ManualClock.startingAtEpochOf2024());

    private static AMQP.BasicProperties properties(String messageId, Map<String, Object> headers) {
        return new AMQP.BasicProperties.Builder()
                .messageId(messageId)
                .headers(headers)
                .build();
    }

    @Test
    @DisplayName("message_id first, then the cloudEvents:id header as string, long string or bytes")
    void messageId() {
        assertThat(RabbitMqInbox.messageId(properties("m-1", Map.of("cloudEvents:id", "other"))))
                .contains("m-1");
        assertThat(RabbitMqInbox.messageId(properties(null, Map.of("cloudEvents:id", "h-1"))))
                .contains("h-1");
        assertThat(RabbitMqInbox.messageId(
                        properties(" ", Map.of("cloudEvents:id", LongStringHelper.asLongString("h-2")))))
                .contains("h-2");
        assertThat(RabbitMqInbox.messageId(
                        properties(null, Map.of("cloudEvents:id", "h-3".getBytes(StandardCharsets.UTF_8)))))
                .contains("h-3");
        assertThat(RabbitMqInbox.messageId(properties(null, null))).isEmpty();
        assertThat(RabbitMqInbox.messageId(properties(null, Map.of("cloudEvents:id", 42))))
                .isEmpty();
    }

    @Test
    @DisplayName("process refuses a message without an id, without running the work")
    void missingId() {
        RabbitMqInbox<InboxKey> inbox = RabbitMqInbox.of(memory, "shipping");

        assertThatThrownBy(() -> inbox.process(properties(null, null), key -> {
                    throw new AssertionError("must not run");
                }))
                .isInstanceOf(UnidentifiableMessageException.class)
                .hasMessageContaining("message_id");
    }

    @Test
    @DisplayName("a blank consumer name is refused when the helper is made")
    void consumerName() {
        assertThatThrownBy(() -> RabbitMqInbox.of(memory, ""))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("inbox.consumerName");
    }
}
