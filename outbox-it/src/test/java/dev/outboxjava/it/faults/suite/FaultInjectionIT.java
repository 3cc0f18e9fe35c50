package dev.outboxjava.it.faults.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxjava.it.faults.FaultKind;
import dev.outboxjava.it.faults.FaultReport;
import dev.outboxjava.testkit.fixture.ServiceOrigin;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.util.Arrays;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reliability claim, measured: relays killed with SIGKILL (also between the broker's acknowledgement and
 * the mark), the broker stopped, the relays' database sessions terminated, a publisher hung past the lease
 * timeout, a relay with a skewed clock — while producers write and roll back continuously, each transaction
 * locking one to three aggregates in key order and appending an event for each. Ends with one summary line per
 * broker: {@code events N, faults F, lost 0, phantom 0, reordered 0 (of E events, K keys, …), duplicates D, stuck
 * 0}.
 *
 * <p>Default size: at least 1,500 events and one fault of every kind per broker (about a minute each), per-key
 * ordering (order checked) on both: Kafka on the append-only layout, RabbitMQ in place with the worker's own
 * processes ({@code -Doutbox.faults.ordering=none|per_key} and {@code -Doutbox.faults.layout=append_log|in_place}
 * set both).
 * The long run: {@code mvn -B -pl outbox-it -am verify -Pfaults-long} (100,000+ events and 60+ faults per
 * broker).
 */
@DisplayName("Fault injection: nothing lost, nothing phantom, nothing stuck")
class FaultInjectionIT {

    private static final Logger log = LoggerFactory.getLogger(FaultInjectionIT.class);

    private static PostgresFixture postgres;

    @BeforeAll
    static void database() {
        postgres = PostgresFixture.shared();
        // the harness reports each fault at INFO; this module's test logging keeps the testkit at WARN
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("dev.outboxjava.it.faults"))
                .setLevel(ch.qos.logback.classic.Level.INFO);
    }

    @Test
    @DisplayName(
            "Kafka (in-process broker stopped and restarted): every committed event delivered, no phantom, per-key order kept, none stuck")
    void kafka() throws Exception {
        try (KafkaUnderTest kafka = new KafkaUnderTest()) {
            FaultRunConfig settings = FaultRunConfig.current("kafka");
            verify(new FaultScenario(postgres, kafka, settings, seed()).run(), "kafka", settings);
        }
    }

    @Test
    @DisplayName(
            "RabbitMQ (the relays' connections closed by the broker): every committed event delivered, no phantom, none stuck")
    void rabbitMq() throws Exception {
        RabbitMqFixture rabbit = RabbitMqFixture.start();
        try {
            assumeTrue(
                    rabbit.origin() == ServiceOrigin.LOCAL || rabbit.origin() == ServiceOrigin.EXPLICIT,
                    "needs a RabbitMQ node that rabbitmqctl can reach, found " + rabbit.origin());
            try (RabbitMqUnderTest broker = new RabbitMqUnderTest(rabbit)) {
                FaultRunConfig settings = FaultRunConfig.current("rabbitmq");
                verify(new FaultScenario(postgres, broker, settings, seed()).run(), "rabbitmq", settings);
            }
        } finally {
            rabbit.close();
        }
    }

    private static long seed() {
        long seed = Long.getLong("outbox.faults.seed", System.nanoTime());
        log.info("fault run seed {} (repeat with -Doutbox.faults.seed={})", seed, seed);
        return seed;
    }

    private static void verify(FaultReport report, String broker, FaultRunConfig settings) {
        String run = broker + " " + settings.layout().name().toLowerCase(Locale.ROOT) + " "
                + (settings.ordering().isPerKey() ? "per_key" : "none");
        String line = report.summaryLine();
        System.out.println("[fault run " + run + "] " + line);
        log.info("[fault run {}] {}", run, line);
        assertThat(report.faultsByKind().keySet())
                .as("every kind of fault injected")
                .containsAll(Arrays.asList(FaultKind.values()));
        assertThat(report.lost()).as("lost: " + report.details()).isZero();
        assertThat(report.phantom()).as("phantom: " + report.details()).isZero();
        assertThat(report.reordered().orElse(0))
                .as("reordered: " + report.details())
                .isZero();
        if (settings.ordering().isPerKey()) {
            assertThat(report.orderChecked())
                    .as("committed events whose per-key order was checked")
                    .isEqualTo(report.events());
        }
        assertThat(report.stuck()).as("stuck: " + report.details()).isZero();
        assertThat(report.pending()).as("pending: " + report.details()).isZero();
        assertThat(report.deadLettered())
                .as("dead-lettered: " + report.details())
                .isZero();
        assertThat(report.unexplainedDuplicates())
                .as("unexplained duplicates: " + report.details())
                .isZero();
        assertThat(report.passed()).isTrue();
    }
}
