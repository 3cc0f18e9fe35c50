package dev.outboxjava.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchmarkConfigTest {

    @Test
    void quickStartsFromTheSmallerRunAndLaterOptionsOverrideIt() {
        BenchmarkConfig options =
                BenchmarkConfig.parse(new String[] {"--sent-rows", "5000", "--quick", "--scenarios=1,6"});

        assertThat(options.runs()).isEqualTo(1);
        assertThat(options.steadyTime()).isEqualTo(Duration.ofSeconds(15));
        assertThat(options.sentRows()).isEqualTo(5000);
        assertThat(options.scenarios()).isEqualTo(Set.of(1, 6));
    }

    @Test
    void defaultsRunEveryScenarioAtFullSize() {
        BenchmarkConfig options = BenchmarkConfig.parse(new String[0]);

        assertThat(options.backlog()).isEqualTo(200_000);
        assertThat(options.steadyRate()).isEqualTo(2_000);
        // 60 s of steady state per wake-up, as three runs of 20 s
        assertThat(options.runs()).isEqualTo(3);
        assertThat(options.steadyTime()).isEqualTo(Duration.ofSeconds(20));
        assertThat(BenchmarkConfig.parse(new String[] {"--steady-seconds", "60"})
                        .steadyTime())
                .isEqualTo(Duration.ofSeconds(60));
        assertThat(options.sentRows()).isEqualTo(10_000_000L);
        assertThat(options.scenarios()).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 8);
    }

    @Test
    void theBrokerLogGoesWhereItIsToldElseToMemoryWhenThereIsRoom(@TempDir Path dir) {
        BenchmarkConfig told = BenchmarkConfig.parse(new String[] {"--kafka-log-dir", dir.toString()});

        assertThat(Services.kafkaLogParent(told.kafkaLogDir())).isEqualTo(dir);
        assertThat(BenchmarkConfig.parse(new String[0]).kafkaLogDir()).isEmpty();
        assertThat(Services.kafkaLogParent(""))
                .isIn(Path.of("/dev/shm"), Path.of(System.getProperty("java.io.tmpdir")));
    }

    @Test
    void theKafkaBrokerRunsInAJvmOfItsOwnUnlessToldInProcess() {
        assertThat(BenchmarkConfig.parse(new String[0]).kafkaInProcess()).isFalse();
        assertThat(BenchmarkConfig.parse(new String[] {"--kafka-broker", "own-jvm"})
                        .kafkaInProcess())
                .isFalse();
        BenchmarkConfig inProcess = BenchmarkConfig.parse(new String[] {"--kafka-broker=in-process"});
        assertThat(inProcess.kafkaInProcess()).isTrue();
        assertThat(inProcess.describe()).contains("kafka-broker=in-process");
        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--kafka-broker", "docker"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("--kafka-broker")
                .hasMessageContaining("own-jvm or in-process");
    }

    @Test
    void kafkaPropertiesRepeatAndTheLastValueOfANameWins() {
        BenchmarkConfig options = BenchmarkConfig.parse(new String[] {
            "--kafka-property",
            "linger.ms=0",
            "--kafka-property=compression.type=zstd",
            "--kafka-property",
            "linger.ms=2"
        });

        assertThat(options.kafkaProperties()).containsOnly(entry("linger.ms", "2"), entry("compression.type", "zstd"));
        assertThat(options.describe()).contains("kafka={compression.type=zstd, linger.ms=2}");
        assertThat(BenchmarkConfig.parse(new String[0]).kafkaProperties()).isEmpty();
        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--kafka-property", "linger.ms"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("--kafka-property")
                .hasMessageContaining("NAME=VALUE");
    }

    @Test
    void theTailScenarioRunsOnlyWhenNamedTwoMinutesPerRunAtBothRates() {
        BenchmarkConfig defaults = BenchmarkConfig.ofDefaults();
        assertThat(defaults.runs(9)).isFalse();
        assertThat(defaults.tailTime()).isEqualTo(Duration.ofSeconds(120));
        assertThat(defaults.tailInterval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(defaults.tailRates()).containsExactly(500, 2_000);

        BenchmarkConfig chosen = BenchmarkConfig.parse(new String[] {
            "--scenarios", "9", "--tail-seconds", "30", "--tail-interval-seconds", "10", "--tail-rates", "1000"
        });
        assertThat(chosen.runs(9)).isTrue();
        assertThat(chosen.tailRates()).containsExactly(1_000);
        assertThat(chosen.describe()).contains("tail=30s per 10s at [1000]/s");
        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--tail-rates", "500,none"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("--tail-rates");
    }

    @Test
    void theManyOutboxesScenarioRunsOnlyWhenNamedWithOneTenAndAHundredOutboxes() {
        BenchmarkConfig defaults = BenchmarkConfig.ofDefaults();
        assertThat(defaults.runs(10)).isFalse();
        assertThat(defaults.manyOutboxes()).containsExactly(1, 10, 100);
        assertThat(defaults.manyEvents()).isEqualTo(2_000);
        assertThat(defaults.manyIdleTime()).isEqualTo(Duration.ofSeconds(30));
        assertThat(BenchmarkConfig.quick().manyEvents()).isEqualTo(500);
        assertThat(BenchmarkConfig.quick().manyIdleTime()).isEqualTo(Duration.ofSeconds(10));

        BenchmarkConfig chosen = BenchmarkConfig.parse(new String[] {
            "--scenarios", "10", "--many-outboxes", "20,5,5", "--many-events", "300", "--many-idle-seconds", "5"
        });
        assertThat(chosen.runs(10)).isTrue();
        assertThat(chosen.manyOutboxes()).containsExactly(5, 20);
        assertThat(chosen.describe()).contains("many=[5, 20] outboxes x 300 events, idle 5s");
        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--many-outboxes", "10,none"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("--many-outboxes");
    }

    @Test
    void anUnusableValueIsRefusedNamingTheOption() {
        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--runs", "zero"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("--runs");
        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--scenarios", "11"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("1 to 10");
        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--warp"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("--warp");
    }

    @Test
    void theLongTransactionScenarioRunsOnlyWhenNamedTenMinutesPerRunForEveryCompletionAndOrdering() {
        BenchmarkConfig defaults = BenchmarkConfig.parse(new String[0]);
        assertThat(defaults.runs(7)).isFalse();
        assertThat(defaults.heldTime()).isEqualTo(Duration.ofMinutes(10));
        assertThat(defaults.heldInterval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(defaults.heldCompletions())
                .containsExactly(CompletionMode.KEEP_SENT, CompletionMode.DELETE_ON_PUBLISH);
        assertThat(defaults.heldOrderings()).containsExactly(Ordering.Mode.NONE, Ordering.Mode.PER_KEY);
        assertThat(defaults.heldLayouts()).containsExactly(StoreLayout.IN_PLACE, StoreLayout.APPEND_LOG);

        BenchmarkConfig chosen = BenchmarkConfig.parse(new String[] {
            "--scenarios",
            "7",
            "--held-seconds",
            "20",
            "--held-interval-seconds=5",
            "--held-completion",
            "delete",
            "--held-ordering",
            "per_key"
        });
        assertThat(chosen.scenarios()).containsExactly(7);
        assertThat(chosen.heldTime()).isEqualTo(Duration.ofSeconds(20));
        assertThat(chosen.heldInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(chosen.heldCompletions()).containsExactly(CompletionMode.DELETE_ON_PUBLISH);
        assertThat(chosen.heldOrderings()).containsExactly(Ordering.Mode.PER_KEY);
        assertThat(chosen.describe()).contains("held=20s per 5s");
        assertThat(BenchmarkConfig.parse(new String[] {"--quick"}).heldTime()).isEqualTo(Duration.ofSeconds(60));

        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--held-completion", "keep"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("--held-completion");
        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--scenarios", "11"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("1 to 10");
    }

    @Test
    void theLongTransactionScenarioRelaysWithTheLibrarysDefaultsUnlessSetNotWithScenarioThreesWorker() {
        BenchmarkConfig defaults = BenchmarkConfig.parse(new String[] {"--scenarios", "7", "--relay-threads", "4"});
        assertThat(defaults.heldThreads()).isEqualTo(OutboxWorkerConfig.DEFAULT_RELAY_THREADS);
        assertThat(defaults.heldBatchSize(Ordering.none())).isEqualTo(RelayConfig.DEFAULT_BATCH_SIZE);
        assertThat(defaults.heldBatchSize(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)))
                .isEqualTo(RelayConfig.DEFAULT_PER_KEY_BATCH_SIZE);
        assertThat(defaults.describe()).contains("held-relay=1 threads x batch the ordering's default");

        BenchmarkConfig chosen = BenchmarkConfig.parse(
                new String[] {"--scenarios", "7", "--held-relay-threads", "2", "--held-batch-size=700"});
        assertThat(chosen.heldThreads()).isEqualTo(2);
        assertThat(chosen.heldBatchSize(Ordering.none())).isEqualTo(700);
        assertThat(chosen.heldBatchSize(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)))
                .isEqualTo(700);
        assertThat(chosen.describe()).contains("held-relay=2 threads x batch 700");
        assertThat(BenchmarkConfig.usage()).contains("--held-relay-threads", "--held-batch-size");

        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--held-batch-size", "0"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("--held-batch-size");
    }

    @Test
    void theLongTransactionScenarioComparesBothLayoutsUnlessOneIsChosen() {
        assertThat(BenchmarkConfig.parse(new String[] {"--held-layout", "in_place"})
                        .heldLayouts())
                .containsExactly(StoreLayout.IN_PLACE);
        BenchmarkConfig log = BenchmarkConfig.parse(new String[] {"--scenarios", "7", "--held-layout=append-log"});
        assertThat(log.heldLayouts()).containsExactly(StoreLayout.APPEND_LOG);
        assertThat(log.describe()).contains("[APPEND_LOG]");
        assertThat(BenchmarkConfig.parse(new String[] {"--held-layout", "both"}).heldLayouts())
                .containsExactly(StoreLayout.IN_PLACE, StoreLayout.APPEND_LOG);
        assertThat(BenchmarkConfig.parse(new String[] {"--held-layout", "append_log,in_place"})
                        .heldLayouts())
                .containsExactly(StoreLayout.APPEND_LOG, StoreLayout.IN_PLACE);
        assertThat(BenchmarkConfig.usage()).contains("--held-layout");

        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--held-layout", "rotated"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("--held-layout")
                .hasMessageContaining("append_log");
    }

    @Test
    void theDrainComparesBothLayoutsUnlessOneIsChosen() {
        assertThat(BenchmarkConfig.ofDefaults().drainLayouts())
                .containsExactly(StoreLayout.IN_PLACE, StoreLayout.APPEND_LOG);
        BenchmarkConfig inPlace =
                BenchmarkConfig.parse(new String[] {"--scenarios", "3", "--drain-layout", "in_place"});
        assertThat(inPlace.drainLayouts()).containsExactly(StoreLayout.IN_PLACE);
        assertThat(inPlace.describe()).contains("drain-layouts=[IN_PLACE]");
        assertThat(BenchmarkConfig.usage()).contains("--drain-layout");
        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--drain-layout", "rotated"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("--drain-layout");
    }

    @Test
    void theScaleOutDrainsTheLibrarysDefaultLayoutUnlessOthersAreChosen() {
        assertThat(BenchmarkConfig.ofDefaults().scaleLayouts()).containsExactly(PostgresOutboxConfig.DEFAULT_LAYOUT);
        BenchmarkConfig both = BenchmarkConfig.parse(new String[] {"--scenarios", "8", "--scale-layout", "both"});
        assertThat(both.scaleLayouts()).containsExactly(StoreLayout.IN_PLACE, StoreLayout.APPEND_LOG);
        assertThat(both.describe()).contains("scale-layouts=[IN_PLACE, APPEND_LOG] scale-keys=1000 scale-threads=1");
        assertThat(BenchmarkConfig.parse(new String[] {"--scale-keys", "20000"}).scaleKeys())
                .isEqualTo(20_000);
        assertThat(BenchmarkConfig.ofDefaults().scaleThreads()).isEqualTo(OutboxWorkerConfig.DEFAULT_RELAY_THREADS);
        assertThat(BenchmarkConfig.parse(new String[] {"--scale-threads", "2"}).scaleThreads())
                .isEqualTo(2);
        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--scale-threads", "0"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("--scale-threads");
        assertThat(BenchmarkConfig.usage()).contains("--scale-layout");
        assertThatThrownBy(() -> BenchmarkConfig.parse(new String[] {"--scale-layout", "rotated"}))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("--scale-layout");
    }
}
