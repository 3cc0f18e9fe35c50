package dev.outboxjava.relayapp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.relayapp.HttpConfig;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.worker.OutboxWorker;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The standalone process's {@code /metrics} carries the JVM and process meters beside the outbox's own. */
@DisplayName("JVM and process metrics on /metrics")
class ProcessMetricsTest {

    @Test
    @DisplayName("memory, GC, threads, classes, CPU, uptime and file descriptors are scraped with the outbox meters")
    void metricsEndpointExposesJvmAndProcessMeters() throws Exception {
        PrometheusMeterRegistry registry = StandaloneModules.prometheus();
        try (OutboxWorker worker = OutboxWorker.builder()
                .store(new InMemoryOutboxStore())
                .publisher(new RecordingPublisher())
                .meterRegistry(registry)
                .build()) {
            worker.start();
            try (HealthHttpServer server = HealthHttpServer.start(new HttpConfig("127.0.0.1", 0), registry, worker)) {
                HttpResponse<String> response = HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());

                assertThat(response.statusCode()).isEqualTo(200);
                Set<String> names = Arrays.stream(response.body().split("\n"))
                        .filter(line -> !line.startsWith("#") && !line.isBlank())
                        .map(line -> line.split("[{ ]", 2)[0])
                        .collect(Collectors.toSet());
                assertThat(names)
                        .contains(
                                "jvm_memory_used_bytes",
                                "jvm_memory_max_bytes",
                                "jvm_buffer_memory_used_bytes",
                                "jvm_gc_memory_allocated_bytes_total",
                                "jvm_gc_live_data_size_bytes",
                                "jvm_threads_live_threads",
                                "jvm_threads_daemon_threads",
                                "jvm_threads_states_threads",
                                "jvm_classes_loaded_classes",
                                "jvm_info",
                                "process_cpu_usage",
                                "system_cpu_usage",
                                "system_cpu_count",
                                "process_uptime_seconds",
                                "process_start_time_seconds",
                                "process_files_open_files",
                                "process_files_max_files",
                                "outbox_events_published_total",
                                "outbox_events_pending");
                assertThat(response.body()).contains("jvm_memory_used_bytes{area=\"heap\"");
            }
        } finally {
            registry.close();
        }
    }
}
