package dev.outboxjava.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.relayapp.BrokerKind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The demo's own logic with small numbers: embedded PostgreSQL, Kafka in-process or RabbitMQ
 * (local or embedded), relay #1 killed with SIGKILL mid-drain, relay #2 finishes. Nothing may be lost.
 */
@DisplayName("The demo")
class DemoIT {

    @ParameterizedTest(name = "on {0}")
    @EnumSource(BrokerKind.class)
    @DisplayName("kills a relay mid-drain and still delivers every committed order exactly once to the consumer")
    void losesNothing(BrokerKind broker) {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);

        DemoSummary summary = new DemoRun(DemoConfig.embedded(broker, 600, 2), out).run();

        String printed = output.toString(StandardCharsets.UTF_8);
        System.out.println(printed);
        assertThat(summary.relayKills()).isEqualTo(1);
        assertThat(summary.lost()).isZero();
        assertThat(summary.phantoms()).isZero();
        assertThat(summary.written()).isEqualTo(600 - 600 / OrderLoad.REJECT_EVERY);
        assertThat(summary.consumed()).isEqualTo(summary.written());
        assertThat(summary.ok()).isTrue();
        assertThat(printed).contains("SIGKILL relay #1").contains("relay #2 started");
    }
}
