package dev.outboxjava.worker.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.testkit.FaultyPublisher;
import dev.outboxjava.testkit.RecordingPublisher;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The observed publisher")
class ObservedPublisherTest {

    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    /** Every observation context that was stopped, as a tracing handler would see it. */
    private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

    private final ObservationRegistry registry = ObservationRegistry.create();

    {
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
    }

    private static OutboxEvent event(String type) {
        return OutboxEvent.builder()
                .type(type)
                .destination("orders")
                .header("traceparent", TRACEPARENT)
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
    }

    @Test
    @DisplayName("observes each event's publish, its carrier the event's headers so that its parent is the "
            + "appending trace, with the destination, type and id")
    void observesEachEvent() {
        OutboxEvent placed = event("order.placed");
        OutboxEvent paid = event("order.paid");

        ObservedPublisher.observe(new RecordingPublisher(), registry)
                .publish(List.of(placed, paid), Duration.ofSeconds(1))
                .join();

        assertThat(stopped).hasSize(2).allSatisfy(context -> {
            assertThat(context.getName()).isEqualTo(ObservedPublisher.NAME);
            assertThat(context.getContextualName()).isEqualTo("outbox publish orders");
            assertThat(context.getError()).isNull();
            @SuppressWarnings("unchecked")
            ReceiverContext<java.util.Map<String, String>> receiver =
                    (ReceiverContext<java.util.Map<String, String>>) context;
            assertThat(receiver.getGetter().get(receiver.getCarrier(), "traceparent"))
                    .isEqualTo(TRACEPARENT);
        });
        assertThat(stopped)
                .extracting(context -> context.getHighCardinalityKeyValue("messaging.message.id")
                        .getValue())
                .containsExactlyInAnyOrder(placed.id().toString(), paid.id().toString());
        assertThat(stopped)
                .extracting(context ->
                        context.getLowCardinalityKeyValue("outbox.event.type").getValue())
                .containsExactlyInAnyOrder("order.placed", "order.paid");
    }

    @Test
    @DisplayName("a failed publish is an error on that event's observation only")
    void failedEvent() {
        FaultyPublisher broker = FaultyPublisher.wrapping(new RecordingPublisher())
                .failType("order.paid", FaultyPublisher.Failure.PERMANENT);

        ObservedPublisher.observe(broker, registry)
                .publish(List.of(event("order.placed"), event("order.paid")), Duration.ofSeconds(1))
                .join();

        assertThat(stopped)
                .filteredOn(context -> context.getError() != null)
                .extracting(context ->
                        context.getLowCardinalityKeyValue("outbox.event.type").getValue())
                .containsExactly("order.paid");
    }

    @Test
    @DisplayName("with a no-op registry, the publisher is not wrapped")
    void noop() {
        Publisher broker = new RecordingPublisher();

        assertThat(ObservedPublisher.observe(broker, ObservationRegistry.NOOP)).isSameAs(broker);
    }
}
