package dev.outboxjava.rabbitmq;

import com.rabbitmq.client.ConnectionFactory;
import dev.outboxjava.core.InvalidConfigurationException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * How a {@link RabbitMqPublisher} reaches RabbitMQ and how long it waits for it.
 *
 * <pre>{@code
 * RabbitMqPublisherConfig config = RabbitMqPublisherConfig.custom()
 *         .uri("amqp://orders:secret@rabbit.internal:5672/%2F")
 *         .connectionName("orders-outbox-relay")
 *         .build();
 * }</pre>
 *
 * <p>The broker is given either as an AMQP URI ({@link Builder#uri}) or piece by piece (host, port,
 * virtual host, username, password) — not both. Every setting has a default stated on its builder
 * method; {@link Builder#build()} rejects unusable values with an {@link InvalidConfigurationException}
 * that names the setting ({@code rabbitmq.<name>}).
 */
public final class RabbitMqPublisherConfig {

    /** Default host: {@value}. */
    public static final String DEFAULT_HOST = "localhost";
    /** Default AMQP port: {@value}. */
    public static final int DEFAULT_PORT = 5672;
    /** Default virtual host: {@value}. */
    public static final String DEFAULT_VIRTUAL_HOST = "/";
    /** Default username: {@value}. */
    public static final String DEFAULT_USERNAME = "guest";
    /** Default password: {@value}. */
    public static final String DEFAULT_PASSWORD = "guest";
    /** Default client-provided connection name, shown in the RabbitMQ management UI: {@value}. */
    public static final String DEFAULT_CONNECTION_NAME = "outbox-relay";
    /** Default longest wait for the publisher confirms of one batch: 30 s. */
    public static final Duration DEFAULT_CONFIRM_TIMEOUT = Duration.ofSeconds(30);
    /**
     * Default number of batches published at the same time, each on its own channel: {@value}. At
     * least the relay threads of a typical worker, so no relay thread waits for a channel while
     * another batch awaits its confirms; channels and pool threads are only opened for batches that
     * are actually in flight at once.
     */
    public static final int DEFAULT_MAX_CONCURRENT_BATCHES = 8;
    /** Default TCP connect and AMQP handshake timeout: 10 s. */
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);
    /**
     * Default pause between reconnection attempts after the connection was lost: 1 s, so the relay
     * resumes within about a second of the broker's return (an attempt on a broker that is down is a
     * refused TCP connection, which costs it nothing).
     */
    public static final Duration DEFAULT_RECOVERY_INTERVAL = Duration.ofSeconds(1);
    /** Default AMQP heartbeat: 30 s. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(30);
    /** Most batches in flight at once (one channel each). */
    public static final int MAX_CONCURRENT_BATCHES = 64;

    private final String host;
    private final int port;
    private final String virtualHost;
    private final String username;
    private final String password;
    private final String connectionName;
    private final Duration confirmTimeout;
    private final int maxConcurrentBatches;
    private final Duration connectionTimeout;
    private final Duration recoveryInterval;
    private final Duration heartbeat;

    private RabbitMqPublisherConfig(Builder b, String host, int port, String virtualHost, String username,
            String password) {
        this.host = host;
        this.port = port;
        this.virtualHost = virtualHost;
        this.username = username;
        this.password = password;
        this.connectionName = b.connectionName;
        this.confirmTimeout = b.confirmTimeout;
        this.maxConcurrentBatches = b.maxConcurrentBatches;
        this.connectionTimeout = b.connectionTimeout;
        this.recoveryInterval = b.recoveryInterval;
        this.heartbeat = b.heartbeat;
    }

    /** Starts a configuration from the defaults (a broker on {@code localhost:5672} as {@code guest}). */
    public static Builder custom() {
        return new Builder();
    }

    /** Every default: {@code amqp://guest:guest@localhost:5672/}. */
    public static RabbitMqPublisherConfig ofDefaults() {
        return custom().build();
    }

    /** The broker host. */
    public String host() {
        return host;
    }

    /** The AMQP port. */
    public int port() {
        return port;
    }

    /** The virtual host. */
    public String virtualHost() {
        return virtualHost;
    }

    /** The username. */
    public String username() {
        return username;
    }

    /** The password (never logged). */
    public String password() {
        return password;
    }

    /** The client-provided connection name. */
    public String connectionName() {
        return connectionName;
    }

    /** The longest wait for the confirms of one batch. */
    public Duration confirmTimeout() {
        return confirmTimeout;
    }

    /** How many batches may be published at the same time, one channel each. */
    public int maxConcurrentBatches() {
        return maxConcurrentBatches;
    }

    /** The TCP connect and AMQP handshake timeout. */
    public Duration connectionTimeout() {
        return connectionTimeout;
    }

    /** The pause between reconnection attempts. */
    public Duration recoveryInterval() {
        return recoveryInterval;
    }

    /** The AMQP heartbeat; zero means none. */
    public Duration heartbeat() {
        return heartbeat;
    }

    /** Where this configuration points, for logs and health details (no password). */
    public String describeBroker() {
        return host + ":" + port + " (virtual host '" + virtualHost + "', user '" + username + "')";
    }

    @Override
    public String toString() {
        return "RabbitMqPublisherConfig[" + describeBroker() + ", connectionName=" + connectionName
                + ", confirmTimeout=" + confirmTimeout + ", maxConcurrentBatches=" + maxConcurrentBatches
                + ", connectionTimeout=" + connectionTimeout + ", recoveryInterval=" + recoveryInterval
                + ", heartbeat=" + heartbeat + "]";
    }

    /** Builds a {@link RabbitMqPublisherConfig}; see the class comment. */
    public static final class Builder {
        private String uri;
        private String host = DEFAULT_HOST;
        private int port = DEFAULT_PORT;
        private String virtualHost = DEFAULT_VIRTUAL_HOST;
        private String username = DEFAULT_USERNAME;
        private String password = DEFAULT_PASSWORD;
        private String connectionName = DEFAULT_CONNECTION_NAME;
        private Duration confirmTimeout = DEFAULT_CONFIRM_TIMEOUT;
        private int maxConcurrentBatches = DEFAULT_MAX_CONCURRENT_BATCHES;
        private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
        private Duration recoveryInterval = DEFAULT_RECOVERY_INTERVAL;
        private Duration heartbeat = DEFAULT_HEARTBEAT;
        private final Set<String> piecesSet = new LinkedHashSet<>();

        private Builder() {
        }

        /**
         * The broker as an AMQP URI, e.g. {@code amqp://user:pass@host:5672/vhost} (the virtual host
         * {@code /} is written {@code %2F}); {@code amqps://} is not supported yet. Default: none (the
         * host/port/... settings apply). Cannot be combined with those settings.
         */
        public Builder uri(String value) {
            this.uri = Objects.requireNonNull(value, "uri");
            return this;
        }

        /** The broker host. Default {@value #DEFAULT_HOST}. */
        public Builder host(String value) {
            this.host = value;
            piecesSet.add("host");
            return this;
        }

        /** The AMQP port. Default {@value #DEFAULT_PORT}; 1–65535. */
        public Builder port(int value) {
            this.port = value;
            piecesSet.add("port");
            return this;
        }

        /** The virtual host. Default {@value #DEFAULT_VIRTUAL_HOST}. */
        public Builder virtualHost(String value) {
            this.virtualHost = value;
            piecesSet.add("virtualHost");
            return this;
        }

        /** The username. Default {@value #DEFAULT_USERNAME}. */
        public Builder username(String value) {
            this.username = value;
            piecesSet.add("username");
            return this;
        }

        /** The password. Default {@value #DEFAULT_PASSWORD}. */
        public Builder password(String value) {
            this.password = value;
            piecesSet.add("password");
            return this;
        }

        /**
         * The client-provided connection name, shown by {@code rabbitmqctl list_connections} and the
         * management UI so operators can tell relays apart. Default {@value #DEFAULT_CONNECTION_NAME};
         * 1–255 characters.
         */
        public Builder connectionName(String value) {
            this.connectionName = value;
            return this;
        }

        /**
         * The longest a batch waits for its publisher confirms; the wait is the shorter of this and the
         * timeout passed to {@link RabbitMqPublisher#publish}. Events not confirmed in time are retryable
         * failures. Default 30 s; positive.
         */
        public Builder confirmTimeout(Duration value) {
            this.confirmTimeout = Objects.requireNonNull(value, "confirmTimeout");
            return this;
        }

        /**
         * How many batches may be published at the same time; each uses its own channel, so the order
         * within a batch is kept. Set it to at least the number of threads that call
         * {@link RabbitMqPublisher#publish} at once (a worker's relay threads): a batch beyond the limit
         * waits for a channel, and that wait counts against its timeout. Default
         * {@value #DEFAULT_MAX_CONCURRENT_BATCHES}; 1–{@value #MAX_CONCURRENT_BATCHES}.
         */
        public Builder maxConcurrentBatches(int value) {
            this.maxConcurrentBatches = value;
            return this;
        }

        /** TCP connect and AMQP handshake timeout. Default 10 s; positive. */
        public Builder connectionTimeout(Duration value) {
            this.connectionTimeout = Objects.requireNonNull(value, "connectionTimeout");
            return this;
        }

        /** Pause between reconnection attempts (automatic connection recovery). Default 1 s; positive. */
        public Builder recoveryInterval(Duration value) {
            this.recoveryInterval = Objects.requireNonNull(value, "recoveryInterval");
            return this;
        }

        /** AMQP heartbeat, which detects a dead connection. Default 30 s; zero disables it. */
        public Builder heartbeat(Duration value) {
            this.heartbeat = Objects.requireNonNull(value, "heartbeat");
            return this;
        }

        /**
         * Validates and creates the configuration.
         *
         * @throws InvalidConfigurationException naming the first unusable setting
         */
        public RabbitMqPublisherConfig build() {
            String h = host;
            int p = port;
            String vh = virtualHost;
            String user = username;
            String pass = password;
            if (uri != null) {
                if (!piecesSet.isEmpty()) {
                    throw new InvalidConfigurationException("rabbitmq.uri", "give the broker either as a URI or as "
                            + "host/port/virtualHost/username/password, not both (also set: " + piecesSet + ")");
                }
                if (uri.regionMatches(true, 0, "amqps:", 0, 6)) {
                    throw new InvalidConfigurationException("rabbitmq.uri", "amqps:// (TLS) is not supported yet");
                }
                ConnectionFactory parser = new ConnectionFactory();
                try {
                    parser.setUri(uri);
                } catch (Exception | Error e) {
                    throw new InvalidConfigurationException("rabbitmq.uri", "is not an AMQP URI like "
                            + "amqp://user:pass@host:5672/vhost (" + e.getMessage() + ")");
                }
                h = parser.getHost();
                p = parser.getPort();
                vh = parser.getVirtualHost();
                user = parser.getUsername();
                pass = parser.getPassword();
            }
            requireText("rabbitmq.host", h);
            if (p < 1 || p > 65_535) {
                throw new InvalidConfigurationException("rabbitmq.port", "must be between 1 and 65535, was " + p);
            }
            requireText("rabbitmq.virtualHost", vh);
            requireText("rabbitmq.username", user);
            if (pass == null) {
                throw new InvalidConfigurationException("rabbitmq.password", "is required (may be empty)");
            }
            requireText("rabbitmq.connectionName", connectionName);
            if (connectionName.length() > 255) {
                throw new InvalidConfigurationException("rabbitmq.connectionName", "must be at most 255 characters");
            }
            requirePositive("rabbitmq.confirmTimeout", confirmTimeout);
            requirePositive("rabbitmq.connectionTimeout", connectionTimeout);
            requirePositive("rabbitmq.recoveryInterval", recoveryInterval);
            if (heartbeat.isNegative()) {
                throw new InvalidConfigurationException("rabbitmq.heartbeat", "must not be negative (zero disables "
                        + "heartbeats), was " + heartbeat);
            }
            if (maxConcurrentBatches < 1 || maxConcurrentBatches > MAX_CONCURRENT_BATCHES) {
                throw new InvalidConfigurationException("rabbitmq.maxConcurrentBatches", "must be between 1 and "
                        + MAX_CONCURRENT_BATCHES + ", was " + maxConcurrentBatches);
            }
            if (connectionTimeout.toMillis() > Integer.MAX_VALUE) {
                throw new InvalidConfigurationException("rabbitmq.connectionTimeout", "is too long: " + connectionTimeout);
            }
            if (heartbeat.toSeconds() > 65_535) {
                throw new InvalidConfigurationException("rabbitmq.heartbeat", "must be at most 65535 seconds");
            }
            return new RabbitMqPublisherConfig(this, h, p, vh, user, pass);
        }

        private static void requireText(String setting, String value) {
            if (value == null || value.isBlank()) {
                throw new InvalidConfigurationException(setting, "is required and must not be blank");
            }
        }

        private static void requirePositive(String setting, Duration value) {
            if (value.isZero() || value.isNegative()) {
                throw new InvalidConfigurationException(setting, "must be positive, was " + value);
            }
        }
    }
}
