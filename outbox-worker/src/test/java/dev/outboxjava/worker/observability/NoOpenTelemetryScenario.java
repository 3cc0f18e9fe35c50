package dev.outboxjava.worker.observability;

import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.postgres.tracing.TraceContextHeaders;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Run by {@link WithoutOpenTelemetryTest} inside a class loader that has no OpenTelemetry classes:
 * reports what the tracing code paths did, and drains events through a real worker.
 */
public final class NoOpenTelemetryScenario implements Callable<List<String>> {

    @Override
    public List<String> call() {
        List<String> report = new ArrayList<>();
        report.add("otel classes visible: " + visible("io.opentelemetry.context.Context"));
        report.add("writer sees otel: " + TraceContextHeaders.openTelemetryPresent());
        report.add("relay sees otel: " + Tracing.available());
        OutboxEvent event = OutboxEvent.builder()
                .type("t")
                .destination("d")
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
        List<OutboxEvent> events = List.of(event);
        report.add("events unchanged: " + (TraceContextHeaders.withCurrentTraceContext(events) == events));
        RecordingPublisher recording = new RecordingPublisher();
        Publisher traced = Tracing.traced(recording);
        report.add("publisher unwrapped: " + (traced == recording));
        InMemoryOutboxStore store = new InMemoryOutboxStore();
        for (int i = 0; i < 10; i++) {
            store.append(OutboxEvent.builder()
                    .type("t")
                    .destination("d")
                    .payload("{}".getBytes(StandardCharsets.UTF_8))
                    .build());
        }
        try (OutboxWorker worker = OutboxWorker.builder()
                .store(store)
                .publisher(recording)
                .config(OutboxWorkerConfig.builder()
                        .pollInterval(Duration.ofMillis(50))
                        .build())
                .build()) {
            worker.start();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> recording.published().size() >= 10);
        }
        report.add("published by the worker: " + recording.published().size());
        return report;
    }

    private static boolean visible(String className) {
        try {
            Class.forName(className, false, NoOpenTelemetryScenario.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
