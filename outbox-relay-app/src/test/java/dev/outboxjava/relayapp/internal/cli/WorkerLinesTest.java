package dev.outboxjava.relayapp.internal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.port.WorkerHeartbeat;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The workers as status prints them")
class WorkerLinesTest {

    private static final Instant NOW = Instant.parse("2026-12-02T09:00:00.250Z");

    private static WorkerHeartbeat beatAt(Instant beat, Optional<WorkerHeartbeat.Failure> error) {
        return new WorkerHeartbeat(
                UUID.fromString("0b6e2c1a-0000-4000-8000-000000000001"),
                "4242@host-a",
                "host-a",
                "1.2.0",
                3,
                "per key",
                "append-only",
                Instant.parse("2026-12-02T08:00:00Z"),
                beat,
                Duration.ofSeconds(10),
                Optional.of(Instant.parse("2026-12-02T08:59:59.5Z")),
                error);
    }

    @Test
    @DisplayName("a worker that beats is running, with every time to the millisecond and no record syntax")
    void running() {
        String line = WorkerLines.line(beatAt(NOW.minusSeconds(5), Optional.empty()), NOW);

        assertThat(line)
                .startsWith("worker               0b6e2c1a running: 4242@host-a on host-a, version 1.2.0")
                .contains("3 relay thread(s), ordering per key, layout append-only")
                .contains("started 2026-12-02T08:00:00.000Z")
                .contains("last beat 2026-12-02T08:59:55.250Z")
                .contains("last lease 2026-12-02T08:59:59.500Z")
                .endsWith("last error none")
                .doesNotContain("[")
                .doesNotContain("Optional");
    }

    @Test
    @DisplayName("one silent for more than three intervals is gone, and its last error's control characters are "
            + "escaped")
    void gone() {
        String line = WorkerLines.line(
                beatAt(
                        NOW.minusSeconds(31),
                        Optional.of(new WorkerHeartbeat.Failure(NOW.minusSeconds(40), "database: down\u001b[0m"))),
                NOW);

        assertThat(line)
                .contains("gone (no beat for 31.000s)")
                .endsWith("last error 2026-12-02T08:59:20.250Z database: down\\u001B[0m")
                .doesNotContain("\u001b");
    }

    @Test
    @DisplayName("without heartbeats one line says none beats")
    void none() {
        assertThat(WorkerLines.of(List.of(), NOW)).containsExactly("workers              none beating");
    }
}
