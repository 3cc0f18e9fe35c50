package dev.outboxjava.worker;

import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.relay.CleanerConfig;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.SweeperConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How the worker's loops run: the relay (batch size, threads, publish timeout, poll interval, retry
 * policy), the sweeper, the cleaner, the outage backoff, the shutdown bound and the gauge refresh.
 * The tick settings themselves are the core's {@link RelayConfig}, {@link SweeperConfig},
 * {@link CleanerConfig} and {@link RetryPolicy}.
 *
 * <pre>{@code
 * OutboxWorkerConfig config = OutboxWorkerConfig.builder()
 *         .relay(new RelayConfig(1000, Duration.ofSeconds(20)))
 *         .relayThreads(2)
 *         .build();
 * }</pre>
 *
 * Every builder method states its default; {@link Builder#build()} checks all values at once and
 * throws {@link InvalidSettingsException} listing every problem by the builder method that sets it
 * ({@code OutboxWorkerConfig.builder().relayThreads(...)}, see {@link #setting(String)}).
 */
public final class OutboxWorkerConfig {

    /** Default relay threads: 1. */
    public static final int DEFAULT_RELAY_THREADS = 1;
    /** Most relay threads per process. */
    public static final int MAX_RELAY_THREADS = 64;
    /** Default idle poll interval of the relay: 1 s. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
    /** Default sweeper interval: 30 s. */
    public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(30);
    /** Default cleaner interval: 5 min. */
    public static final Duration DEFAULT_CLEAN_INTERVAL = Duration.ofMinutes(5);
    /** Default first outage pause: 500 ms. */
    public static final Duration DEFAULT_BACKOFF_INITIAL = Duration.ofMillis(500);
    /** Default longest outage pause: 30 s. */
    public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(30);
    /** Default shutdown bound: 10 s. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);
    /** Default gauge refresh interval: 15 s. */
    public static final Duration DEFAULT_METRICS_POLL_INTERVAL = Duration.ofSeconds(15);
    /** Default interval of the relay's one-line summary in the log: 60 s. */
    public static final Duration DEFAULT_LOG_SUMMARY_INTERVAL = Duration.ofSeconds(60);
    /** Default interval of the worker's heartbeat ({@code <table>_workers}): 10 s. */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(10);
    /** Default longest broker outage readiness tolerates: 30 s. */
    public static final Duration DEFAULT_MAX_BROKER_OUTAGE = Duration.ofSeconds(30);

    /** How a problem names the lease timeout: the sweeper configuration's, as handed to the builder. */
    static final String LEASE_TIMEOUT = setting("sweeper") + ".leaseTimeout()";
    /** How a problem names the publish timeout: the relay configuration's, as handed to the builder. */
    static final String PUBLISH_TIMEOUT = setting("relay") + ".publishTimeout()";

    /** Null when nobody chose it: the worker then takes the defaults of its store's ordering. */
    private final RelayConfig relay;

    private final int relayThreads;
    private final Duration pollInterval;
    private final RetryPolicy retryPolicy;
    private final SweeperConfig sweeper;
    private final Duration sweepInterval;
    private final boolean cleanerEnabled;
    private final CleanerConfig cleaner;
    private final Duration cleanInterval;
    private final Duration backoffInitial;
    private final Duration backoffMax;
    private final Duration shutdownTimeout;
    private final Duration metricsPollInterval;
    private final Duration logSummaryInterval;
    private final Duration heartbeatInterval;
    private final Duration maxBrokerOutage;

    private OutboxWorkerConfig(Builder builder) {
        this.relay = builder.relay;
        this.relayThreads = builder.relayThreads;
        this.pollInterval = builder.pollInterval;
        this.retryPolicy = builder.retryPolicy;
        this.sweeper = builder.sweeper;
        this.sweepInterval = builder.sweepInterval;
        this.cleanerEnabled = builder.cleanerEnabled;
        this.cleaner = builder.cleaner;
        this.cleanInterval = builder.cleanInterval;
        this.backoffInitial = builder.backoffInitial;
        this.backoffMax = builder.backoffMax;
        this.shutdownTimeout = builder.shutdownTimeout;
        this.metricsPollInterval = builder.metricsPollInterval;
        this.logSummaryInterval = builder.logSummaryInterval;
        this.heartbeatInterval = builder.heartbeatInterval;
        this.maxBrokerOutage = builder.maxBrokerOutage;
    }

    /**
     * How an {@link InvalidSettingsException} names a setting of this configuration: the builder method
     * that sets it, {@code OutboxWorkerConfig.builder().relayThreads(...)}. An application that reads the
     * values from settings of its own may translate these names back into its own.
     *
     * @param builderMethod the name of a method of {@link Builder}, e.g. {@code relayThreads}
     */
    public static String setting(String builderMethod) {
        return "OutboxWorkerConfig.builder()." + builderMethod + "(...)";
    }

    /** Every default. */
    public static OutboxWorkerConfig ofDefaults() {
        return builder().build();
    }

    /** Starts from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder builder = builder();
        builder.relay = relay;
        return builder.relayThreads(relayThreads)
                .pollInterval(pollInterval)
                .retryPolicy(retryPolicy)
                .sweeper(sweeper)
                .sweepInterval(sweepInterval)
                .cleanerEnabled(cleanerEnabled)
                .cleaner(cleaner)
                .cleanInterval(cleanInterval)
                .backoffInitial(backoffInitial)
                .backoffMax(backoffMax)
                .shutdownTimeout(shutdownTimeout)
                .metricsPollInterval(metricsPollInterval)
                .logSummaryInterval(logSummaryInterval)
                .heartbeatInterval(heartbeatInterval)
                .maxBrokerOutage(maxBrokerOutage);
    }

    /**
     * Batch size and publish timeout of a relay tick. When none were set, {@link RelayConfig#ofDefaults()};
     * a worker then relays with {@link RelayConfig#ofDefaults(dev.outboxjava.core.Ordering)} of its
     * store's ordering, whose batch size depends on the ordering.
     */
    public RelayConfig relay() {
        return relay != null ? relay : RelayConfig.ofDefaults();
    }

    /** Whether the relay settings were set rather than left to the store's ordering. */
    boolean relayChosen() {
        return relay != null;
    }

    /** Relay threads in this process. */
    public int relayThreads() {
        return relayThreads;
    }

    /** How long an idle relay waits for a wake-up before polling again. */
    public Duration pollInterval() {
        return pollInterval;
    }

    /** When failed events are retried. */
    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    /** Lease timeout and chunking of the sweeper. */
    public SweeperConfig sweeper() {
        return sweeper;
    }

    /** Time between sweeper ticks. */
    public Duration sweepInterval() {
        return sweepInterval;
    }

    /** Whether this process runs the cleaner. */
    public boolean cleanerEnabled() {
        return cleanerEnabled;
    }

    /** Retention and chunking of the cleaner. */
    public CleanerConfig cleaner() {
        return cleaner;
    }

    /** Time between cleaner ticks. */
    public Duration cleanInterval() {
        return cleanInterval;
    }

    /** First pause of a loop after a failed tick. */
    public Duration backoffInitial() {
        return backoffInitial;
    }

    /** Longest pause of a loop during an outage. */
    public Duration backoffMax() {
        return backoffMax;
    }

    /** How long close() lets batches in flight finish. */
    public Duration shutdownTimeout() {
        return shutdownTimeout;
    }

    /** How often the backlog gauges are refreshed from the store. */
    public Duration metricsPollInterval() {
        return metricsPollInterval;
    }

    /** How often the relay logs its one-line summary; {@link Duration#ZERO} = never. */
    public Duration logSummaryInterval() {
        return logSummaryInterval;
    }

    /**
     * How often the worker records its heartbeat, which the console and {@code status} list; {@link Duration#ZERO}
     * = no heartbeat.
     */
    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /**
     * How long the broker may fail its health check before {@link OutboxWorker#checkReadiness()} says
     * not ready; {@link Duration#ZERO} = at the first failed check.
     */
    public Duration maxBrokerOutage() {
        return maxBrokerOutage;
    }

    @Override
    public String toString() {
        return "OutboxWorkerConfig[relay=" + (relay != null ? relay : "defaults of the store's ordering")
                + ", relayThreads=" + relayThreads + ", pollInterval="
                + pollInterval + ", retryPolicy=" + retryPolicy + ", sweeper=" + sweeper + ", sweepInterval="
                + sweepInterval + ", cleanerEnabled=" + cleanerEnabled + ", cleaner=" + cleaner + ", cleanInterval="
                + cleanInterval + ", backoff=" + backoffInitial + ".." + backoffMax + ", shutdownTimeout="
                + shutdownTimeout + ", metricsPollInterval=" + metricsPollInterval + ", heartbeatInterval="
                + heartbeatInterval + "]";
    }

    /** Builds an {@link OutboxWorkerConfig}. */
    public static final class Builder {
        private RelayConfig relay;
        private int relayThreads = DEFAULT_RELAY_THREADS;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private RetryPolicy retryPolicy = RetryPolicy.ofDefaults();
        private SweeperConfig sweeper = SweeperConfig.ofDefaults();
        private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;
        private boolean cleanerEnabled = true;
        private CleanerConfig cleaner = CleanerConfig.ofDefaults();
        private Duration cleanInterval = DEFAULT_CLEAN_INTERVAL;
        private Duration backoffInitial = DEFAULT_BACKOFF_INITIAL;
        private Duration backoffMax = DEFAULT_BACKOFF_MAX;
        private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
        private Duration metricsPollInterval = DEFAULT_METRICS_POLL_INTERVAL;
        private Duration logSummaryInterval = DEFAULT_LOG_SUMMARY_INTERVAL;
        private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        private Duration maxBrokerOutage = DEFAULT_MAX_BROKER_OUTAGE;

        private Builder() {}

        /**
         * Batch size and publish timeout of a relay tick. Default: {@link
         * RelayConfig#ofDefaults(dev.outboxjava.core.Ordering)} of the store's ordering (batch 1,000, or 500
         * per key; 30 s).
         */
        public Builder relay(RelayConfig value) {
            this.relay = Objects.requireNonNull(value, "relay");
            return this;
        }

        /** Relay threads in this process. Default {@value #DEFAULT_RELAY_THREADS}; 1 to {@value #MAX_RELAY_THREADS}. */
        public Builder relayThreads(int value) {
            this.relayThreads = value;
            return this;
        }

        /** How long an idle relay waits for a wake-up before polling again. Default 1 s; positive. */
        public Builder pollInterval(Duration value) {
            this.pollInterval = Objects.requireNonNull(value, "pollInterval");
            return this;
        }

        /** When failed events are retried. Default {@link RetryPolicy#ofDefaults()}. */
        public Builder retryPolicy(RetryPolicy value) {
            this.retryPolicy = Objects.requireNonNull(value, "retryPolicy");
            return this;
        }

        /** Lease timeout and chunking of the sweeper. Default {@link SweeperConfig#ofDefaults()} (lease timeout 2 min). */
        public Builder sweeper(SweeperConfig value) {
            this.sweeper = Objects.requireNonNull(value, "sweeper");
            return this;
        }

        /** Time between sweeper ticks. Default 30 s; positive. */
        public Builder sweepInterval(Duration value) {
            this.sweepInterval = Objects.requireNonNull(value, "sweepInterval");
            return this;
        }

        /** Whether this process runs the cleaner. Default true. */
        public Builder cleanerEnabled(boolean value) {
            this.cleanerEnabled = value;
            return this;
        }

        /** Retention and chunking of the cleaner. Default {@link CleanerConfig#ofDefaults()} (7 days). */
        public Builder cleaner(CleanerConfig value) {
            this.cleaner = Objects.requireNonNull(value, "cleaner");
            return this;
        }

        /** Time between cleaner ticks. Default 5 min; positive. */
        public Builder cleanInterval(Duration value) {
            this.cleanInterval = Objects.requireNonNull(value, "cleanInterval");
            return this;
        }

        /** First pause of a loop after a failed tick; doubles per further failure. Default 500 ms; positive. */
        public Builder backoffInitial(Duration value) {
            this.backoffInitial = Objects.requireNonNull(value, "backoffInitial");
            return this;
        }

        /** Longest pause of a loop during an outage. Default 30 s; at least the initial backoff. */
        public Builder backoffMax(Duration value) {
            this.backoffMax = Objects.requireNonNull(value, "backoffMax");
            return this;
        }

        /** How long {@link OutboxWorker#close()} lets batches in flight finish. Default 10 s; not negative. */
        public Builder shutdownTimeout(Duration value) {
            this.shutdownTimeout = Objects.requireNonNull(value, "shutdownTimeout");
            return this;
        }

        /** How often the pending gauges are refreshed from the store. Default 15 s; positive. */
        public Builder metricsPollInterval(Duration value) {
            this.metricsPollInterval = Objects.requireNonNull(value, "metricsPollInterval");
            return this;
        }

        /**
         * How often the relay logs one summary line (published, retried, dead-lettered, lease lost, lag)
         * instead of a line per event. Default 60 s; {@link Duration#ZERO} switches it off.
         */
        public Builder logSummaryInterval(Duration value) {
            this.logSummaryInterval = Objects.requireNonNull(value, "logSummaryInterval");
            return this;
        }

        /**
         * How often the worker records its heartbeat in the store (with PostgreSQL, the operator table
         * {@code <table>_workers}): who it is, how it relays, its last lease and last error. The console and the
         * {@code status} command list every worker of the table from it; one that has not beaten for three
         * intervals shows as gone. Default 10 s; {@link Duration#ZERO} switches it off; not negative.
         */
        public Builder heartbeatInterval(Duration value) {
            this.heartbeatInterval = Objects.requireNonNull(value, "heartbeatInterval");
            return this;
        }

        /**
         * How long the broker may fail its health check (counted from the first failed readiness check)
         * before the worker is not ready: a broker restart or a short network cut does not take the worker
         * out of service, a lasting outage does. Default 30 s; {@link Duration#ZERO} = at the first failed
         * check; not negative.
         */
        public Builder maxBrokerOutage(Duration value) {
            this.maxBrokerOutage = Objects.requireNonNull(value, "maxBrokerOutage");
            return this;
        }

        /**
         * Checks every value and the cross-checks (lease timeout above publish timeout) at once.
         *
         * @throws InvalidSettingsException listing every problem by the builder method that sets the value
         *         ({@link OutboxWorkerConfig#setting(String)}); the lease timeout as
         *         {@code OutboxWorkerConfig.builder().sweeper(...).leaseTimeout()}
         */
        public OutboxWorkerConfig build() {
            List<InvalidSettingsException.Problem> problems = new ArrayList<>();
            if (relayThreads < 1 || relayThreads > MAX_RELAY_THREADS) {
                problems.add(problem(
                        "relayThreads", "must be between 1 and " + MAX_RELAY_THREADS + ", was " + relayThreads));
            }
            positive(problems, "pollInterval", pollInterval);
            positive(problems, "sweepInterval", sweepInterval);
            positive(problems, "cleanInterval", cleanInterval);
            positive(problems, "backoffInitial", backoffInitial);
            positive(problems, "metricsPollInterval", metricsPollInterval);
            if (backoffMax.compareTo(backoffInitial) < 0) {
                problems.add(problem(
                        "backoffMax",
                        "must be at least " + setting("backoffInitial") + " (" + Durations.format(backoffInitial)
                                + "), was " + Durations.format(backoffMax)));
            }
            if (logSummaryInterval.isNegative()) {
                problems.add(problem(
                        "logSummaryInterval",
                        "must not be negative (0s = off), was " + Durations.format(logSummaryInterval)));
            }
            if (heartbeatInterval.isNegative()) {
                problems.add(problem(
                        "heartbeatInterval",
                        "must not be negative (0s = off), was " + Durations.format(heartbeatInterval)));
            }
            if (maxBrokerOutage.isNegative()) {
                problems.add(problem(
                        "maxBrokerOutage",
                        "must not be negative (0s = at the first " + "failed check), was "
                                + Durations.format(maxBrokerOutage)));
            }
            if (shutdownTimeout.isNegative()) {
                problems.add(
                        problem("shutdownTimeout", "must not be negative, was " + Durations.format(shutdownTimeout)));
            }
            Duration publishTimeout = relay != null ? relay.publishTimeout() : RelayConfig.DEFAULT_PUBLISH_TIMEOUT;
            if (sweeper.leaseTimeout().compareTo(publishTimeout) <= 0) {
                problems.add(new InvalidSettingsException.Problem(
                        LEASE_TIMEOUT,
                        "must be longer than "
                                + PUBLISH_TIMEOUT + " ("
                                + Durations.format(publishTimeout)
                                + "), was " + Durations.format(sweeper.leaseTimeout())
                                + ": otherwise the sweeper reclaims "
                                + "batches that are still being published and every event is sent twice"));
            }
            if (!problems.isEmpty()) {
                throw new InvalidSettingsException(problems);
            }
            return new OutboxWorkerConfig(this);
        }

        private static void positive(List<InvalidSettingsException.Problem> problems, String method, Duration value) {
            if (value.isZero() || value.isNegative()) {
                problems.add(problem(method, "must be positive, was " + Durations.format(value)));
            }
        }

        private static InvalidSettingsException.Problem problem(String method, String reason) {
            return new InvalidSettingsException.Problem(setting(method), reason);
        }
    }
}
