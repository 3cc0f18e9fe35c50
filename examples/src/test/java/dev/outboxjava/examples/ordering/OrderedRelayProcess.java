package dev.outboxjava.examples.ordering;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.RelayResult;
import dev.outboxjava.core.relay.Sweeper;
import dev.outboxjava.core.relay.SweeperConfig;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A relay process for {@link PerKeyOrderingIT}: per-key ordering, {@code threads} relay threads, a
 * sweeper, and a publisher that fails about 5 % of publishes and always fails the head of one key.
 * Runs until killed.
 *
 * <p>Arguments: jdbcUrl user password table bootstrapServers poisonKey seed threads
 */
public final class OrderedRelayProcess {

    private OrderedRelayProcess() {}

    public static void main(String[] args) throws Exception {
        String jdbcUrl = args[0];
        String table = args[3];
        String poisonKey = args[5];
        long seed = Long.parseLong(args[6]);
        int threads = Integer.parseInt(args[7]);
        Ordering ordering = Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY);
        PostgresOutboxStore store = PostgresOutboxStore.create(
                jdbcUrl,
                args[1],
                args[2],
                PostgresOutboxConfig.builder()
                        .tableName(table)
                        .ordering(ordering)
                        .maximumPoolSize(threads + 1)
                        .build());
        FlakyOrderedPublisher publisher = new FlakyOrderedPublisher(
                KafkaPublisher.create(
                        KafkaPublisherConfig.builder().bootstrapServers(args[4]).build()),
                0.05,
                event -> event.keyOrEmpty().equals(poisonKey) && "0".equals(new String(event.payload()).split(":")[1]),
                seed);
        RetryPolicy retry = RetryPolicy.builder()
                .initialDelay(Duration.ofMillis(20))
                .maxDelay(Duration.ofMillis(200))
                .build();
        RelayConfig settings = new RelayConfig(200, Duration.ofSeconds(20), ordering);
        java.util.concurrent.atomic.LongAdder ticks = new java.util.concurrent.atomic.LongAdder();
        java.util.concurrent.atomic.LongAdder leased = new java.util.concurrent.atomic.LongAdder();
        java.util.concurrent.atomic.LongAdder tickNanos = new java.util.concurrent.atomic.LongAdder();
        RelayListener progress = new RelayListener() {
            @Override
            public void onTick(RelayResult result) {
                ticks.increment();
                leased.add(result.leased());
                tickNanos.add(result.elapsed().toNanos());
            }
        };
        Relay relay = new Relay(store, publisher, settings, retry, Clock.systemUTC(), progress);
        Sweeper sweeper = new Sweeper(store, new SweeperConfig(Duration.ofSeconds(60), 1000, 10), Clock.systemUTC());

        List<Thread> loops = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            loops.add(new Thread(
                    () -> {
                        while (true) {
                            try {
                                RelayResult result = relay.runOnce();
                                if (result.leased() < settings.batchSize()) {
                                    Thread.sleep(10);
                                }
                            } catch (InterruptedException e) {
                                return;
                            } catch (RuntimeException e) {
                                System.err.println("relay tick failed: " + e);
                                sleepQuietly(200);
                            }
                        }
                    },
                    "relay-" + t));
        }
        loops.add(new Thread(
                () -> {
                    while (true) {
                        try {
                            sweeper.runOnce();
                        } catch (RuntimeException e) {
                            System.err.println("sweep failed: " + e);
                        }
                        System.out.printf(
                                "ticks %d, leased %d, mean tick %.1f ms%n",
                                ticks.sum(),
                                leased.sum(),
                                ticks.sum() == 0 ? 0.0 : tickNanos.sum() / 1e6 / ticks.sum());
                        sleepQuietly(5000);
                    }
                },
                "sweeper"));
        loops.forEach(Thread::start);
        System.out.println("ordered relay process ready with " + threads + " relay threads");
        for (Thread loop : loops) {
            loop.join();
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
