package dev.outboxjava.rabbitmq;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ConnectionFactoryConfigurator;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.OutboxEvent;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * How a {@link RabbitMqPublisher} reaches RabbitMQ and how long it waits for it.
 *
 * <pre>{@code
 * RabbitMqPublisherConfig config = RabbitMqPublisherConfig.builder()
 *         .uri("amqp://orders:secret@rabbit.internal:5672/%2F")
 *         .connectionName("orders-outbox-relay")
 *         .build();
 * }</pre>
 *
 * <p>The broker is given either as an AMQP URI ({@link Builder#uri}) or piece by piece (host, port,
 * virtual host, username, password) — not both. Every setting has a default stated on its builder
 * method; {@link Builder#build()} rejects unusable values with an {@link InvalidConfigurationException}
 * that names the setting ({@code rabbitmq.<name>}).
 *
 * <p>Every other connection setting of the RabbitMQ Java client (TLS, channel and frame limits,
 * client properties, NIO, ...) is passed with {@link Builder#property(String, String)} under the
 * names amqp-client's {@link ConnectionFactoryConfigurator} reads, e.g. {@code ssl.enabled},
 * {@code ssl.trust.store}, {@code connection.heartbeat}; they override the URI and the typed
 * settings. TLS validates the server certificate and its host name unless told otherwise.
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

    /** The client settings {@link Builder#property} accepts: amqp-client's configurator names and aliases. */
    private static final Set<String> CLIENT_SETTINGS = Set.of(
            ConnectionFactoryConfigurator.USERNAME,
            ConnectionFactoryConfigurator.PASSWORD,
            ConnectionFactoryConfigurator.VIRTUAL_HOST,
            ConnectionFactoryConfigurator.HOST,
            ConnectionFactoryConfigurator.PORT,
            ConnectionFactoryConfigurator.CONNECTION_CHANNEL_MAX,
            ConnectionFactoryConfigurator.CONNECTION_FRAME_MAX,
            ConnectionFactoryConfigurator.CONNECTION_HEARTBEAT,
            ConnectionFactoryConfigurator.CONNECTION_TIMEOUT,
            ConnectionFactoryConfigurator.HANDSHAKE_TIMEOUT,
            ConnectionFactoryConfigurator.SHUTDOWN_TIMEOUT,
            ConnectionFactoryConfigurator.CONNECTION_RECOVERY_INTERVAL,
            ConnectionFactoryConfigurator.CHANNEL_RPC_TIMEOUT,
            ConnectionFactoryConfigurator.CHANNEL_SHOULD_CHECK_RPC_RESPONSE_TYPE,
            ConnectionFactoryConfigurator.USE_NIO,
            ConnectionFactoryConfigurator.NIO_READ_BYTE_BUFFER_SIZE,
            ConnectionFactoryConfigurator.NIO_WRITE_BYTE_BUFFER_SIZE,
            ConnectionFactoryConfigurator.NIO_NB_IO_THREADS,
            ConnectionFactoryConfigurator.NIO_WRITE_ENQUEUING_TIMEOUT_IN_MS,
            ConnectionFactoryConfigurator.NIO_WRITE_QUEUE_CAPACITY,
            ConnectionFactoryConfigurator.SSL_ALGORITHM,
            ConnectionFactoryConfigurator.SSL_ENABLED,
            ConnectionFactoryConfigurator.SSL_KEY_STORE,
            ConnectionFactoryConfigurator.SSL_KEY_STORE_PASSWORD,
            ConnectionFactoryConfigurator.SSL_KEY_STORE_TYPE,
            ConnectionFactoryConfigurator.SSL_KEY_STORE_ALGORITHM,
            ConnectionFactoryConfigurator.SSL_TRUST_STORE,
            ConnectionFactoryConfigurator.SSL_TRUST_STORE_PASSWORD,
            ConnectionFactoryConfigurator.SSL_TRUST_STORE_TYPE,
            ConnectionFactoryConfigurator.SSL_TRUST_STORE_ALGORITHM,
            ConnectionFactoryConfigurator.SSL_VALIDATE_SERVER_CERTIFICATE,
            ConnectionFactoryConfigurator.SSL_VERIFY_HOSTNAME,
            "ssl.key-store",
            "ssl.key-store-password",
            "ssl.key-store-type",
            "ssl.key-store-algorithm",
            "ssl.trust-store",
            "ssl.trust-store-password",
            "ssl.trust-store-type",
            "ssl.trust-store-algorithm",
            "ssl.validate-server-certificate",
            "ssl.verify-hostname");

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
    private final Map<String, String> clientProperties;

    private RabbitMqPublisherConfig(Builder b, ConnectionFactory effective, Map<String, String> clientProperties) {
        this.host = effective.getHost();
        this.port = effective.getPort();
        this.virtualHost = effective.getVirtualHost();
        this.username = effective.getUsername();
        this.password = effective.getPassword();
        this.connectionName = b.connectionName;
        this.confirmTimeout = b.confirmTimeout;
        this.maxConcurrentBatches = b.maxConcurrentBatches;
        this.connectionTimeout = Duration.ofMillis(effective.getConnectionTimeout());
        this.recoveryInterval = Duration.ofMillis(effective.getNetworkRecoveryInterval());
        this.heartbeat = Duration.ofSeconds(effective.getRequestedHeartbeat());
        this.clientProperties = Collections.unmodifiableMap(new TreeMap<>(clientProperties));
    }

    /** Starts a configuration from the defaults (a broker on {@code localhost:5672} as {@code guest}). */
    public static Builder builder() {
        return new Builder();
    }

    /** Every default: {@code amqp://guest:guest@localhost:5672/}. */
    public static RabbitMqPublisherConfig ofDefaults() {
        return builder().build();
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

    /**
     * The further client settings ({@link Builder#property}), TLS defaults included, by their
     * {@link ConnectionFactoryConfigurator} names; applied to the connection factory as they are.
     */
    public Map<String, String> clientProperties() {
        return clientProperties;
    }

    /** Whether the connection uses TLS ({@code amqps://} or {@code ssl.enabled=true}). */
    public boolean tls() {
        return Boolean.parseBoolean(clientProperties.get(ConnectionFactoryConfigurator.SSL_ENABLED));
    }

    /** Where this configuration points, for logs and health details (no password). */
    public String describeBroker() {
        return host + ":" + port + " (virtual host '" + virtualHost + "', user '" + username + "'"
                + (tls() ? ", TLS" : "") + ")";
    }

    @Override
    public String toString() {
        StringBuilder shown = new StringBuilder();
        clientProperties.forEach((name, value) -> shown.append(shown.length() == 0 ? "" : ", ")
                .append(name)
                .append('=')
                .append(isSecret(name) ? "[hidden]" : value));
        return "RabbitMqPublisherConfig[" + describeBroker() + ", connectionName=" + connectionName
                + ", confirmTimeout=" + confirmTimeout + ", maxConcurrentBatches=" + maxConcurrentBatches
                + ", connectionTimeout=" + connectionTimeout + ", recoveryInterval=" + recoveryInterval
                + ", heartbeat=" + heartbeat + ", clientProperties={" + shown + "}]";
    }

    private static boolean isSecret(String name) {
        return name.toLowerCase(Locale.ROOT).contains("password");
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
        private final Map<String, String> properties = new TreeMap<>();

        private Builder() {}

        /**
         * The broker as an AMQP URI, e.g. {@code amqp://user:pass@host:5672/vhost} (the virtual host
         * {@code /} is written {@code %2F}); {@code amqps://} connects with TLS (port 5671 by default),
         * validating the server certificate against the JVM's trust store (or {@code ssl.trust.store})
         * and its host name. Default: none (the host/port/... settings apply). Cannot be combined with
         * those settings.
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
         * One further connection setting of the RabbitMQ Java client, named as amqp-client's
         * {@link ConnectionFactoryConfigurator} names it (without its {@code rabbitmq.} prefix):
         * {@code username}, {@code password}, {@code virtual.host}, {@code host}, {@code port},
         * {@code connection.heartbeat} (seconds), {@code connection.timeout} (ms),
         * {@code connection.channel.max}, {@code connection.frame.max}, {@code handshake.timeout},
         * {@code shutdown.timeout}, {@code connection.recovery.interval} (ms), {@code channel.rpc.timeout},
         * {@code use.nio} and {@code nio.*}, {@code client.properties.<name>}, and TLS:
         * {@code ssl.enabled}, {@code ssl.algorithm}, {@code ssl.key.store}, {@code ssl.key.store.password},
         * {@code ssl.key.store.type} (PKCS12), {@code ssl.trust.store}, {@code ssl.trust.store.password},
         * {@code ssl.trust.store.type} (JKS), {@code ssl.validate.server.certificate} and
         * {@code ssl.verify.hostname} (both true unless set false here, unlike the client's own
         * default). These override the URI and the typed settings.
         *
         * <p>{@link #build()} refuses unknown names (typos), {@code uri} (use {@link #uri}), and the two
         * the publisher owns: {@code connection.recovery.enabled} (always on, so a lost connection comes
         * back) and {@code topology.recovery.enabled} (always off: the publisher declares nothing and
         * reopens its own channels).
         */
        public Builder property(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, () -> "value of RabbitMQ setting " + name);
            properties.put(name, value);
            return this;
        }

        /** Sets every entry of {@code values} as with {@link #property(String, String)}. */
        public Builder properties(Map<String, String> values) {
            values.forEach(this::property);
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
                    throw new InvalidConfigurationException(
                            "rabbitmq.uri",
                            "give the broker either as a URI or as "
                                    + "host/port/virtualHost/username/password, not both (also set: " + piecesSet
                                    + ")");
                }
                ConnectionFactory parser = new ConnectionFactory();
                // amqps:// read as amqp://: the client would install a trust-everything context for it;
                // the publisher sets TLS up itself from the client properties
                boolean amqps = uri.regionMatches(true, 0, "amqps:", 0, 6);
                boolean explicitPort;
                try {
                    String plain = amqps ? "amqp:" + uri.substring("amqps:".length()) : uri;
                    explicitPort = java.net.URI.create(plain).getPort() != -1;
                    parser.setUri(plain);
                } catch (Exception | Error e) {
                    throw new InvalidConfigurationException(
                            "rabbitmq.uri",
                            "is not an AMQP URI like " + "amqp://user:pass@host:5672/vhost (" + e.getMessage() + ")");
                }
                h = parser.getHost();
                p = amqps && !explicitPort ? ConnectionFactory.DEFAULT_AMQP_OVER_SSL_PORT : parser.getPort();
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
                throw new InvalidConfigurationException(
                        "rabbitmq.heartbeat", "must not be negative (zero disables " + "heartbeats), was " + heartbeat);
            }
            if (maxConcurrentBatches < 1 || maxConcurrentBatches > MAX_CONCURRENT_BATCHES) {
                throw new InvalidConfigurationException(
                        "rabbitmq.maxConcurrentBatches",
                        "must be between 1 and " + MAX_CONCURRENT_BATCHES + ", was " + maxConcurrentBatches);
            }
            if (connectionTimeout.toMillis() > Integer.MAX_VALUE) {
                throw new InvalidConfigurationException(
                        "rabbitmq.connectionTimeout", "is too long: " + connectionTimeout);
            }
            if (heartbeat.toSeconds() > 65_535) {
                throw new InvalidConfigurationException("rabbitmq.heartbeat", "must be at most 65535 seconds");
            }
            Map<String, String> client = clientProperties(uri != null && uri.regionMatches(true, 0, "amqps:", 0, 6));
            ConnectionFactory effective = new ConnectionFactory();
            effective.setHost(h);
            effective.setPort(p);
            effective.setVirtualHost(vh);
            effective.setUsername(user);
            effective.setPassword(pass);
            effective.setConnectionTimeout((int) connectionTimeout.toMillis());
            effective.setNetworkRecoveryInterval(recoveryInterval.toMillis());
            effective.setRequestedHeartbeat((int) heartbeat.toSeconds());
            apply(effective, client);
            requireText("rabbitmq.host", effective.getHost());
            requireText("rabbitmq.virtualHost", effective.getVirtualHost());
            requireText("rabbitmq.username", effective.getUsername());
            if (effective.getConnectionTimeout() <= 0) {
                throw new InvalidConfigurationException(
                        "rabbitmq." + ConnectionFactoryConfigurator.CONNECTION_TIMEOUT,
                        "must be positive, was " + effective.getConnectionTimeout());
            }
            if (effective.getNetworkRecoveryInterval() <= 0) {
                throw new InvalidConfigurationException(
                        "rabbitmq." + ConnectionFactoryConfigurator.CONNECTION_RECOVERY_INTERVAL,
                        "must be positive, was " + effective.getNetworkRecoveryInterval());
            }
            if (effective.getRequestedHeartbeat() < 0) {
                throw new InvalidConfigurationException(
                        "rabbitmq." + ConnectionFactoryConfigurator.CONNECTION_HEARTBEAT,
                        "must not be negative (zero disables heartbeats), was " + effective.getRequestedHeartbeat());
            }
            int frameMax = effective.getRequestedFrameMax();
            if (frameMax != 0 && frameMax < OutboxEvent.ENVELOPE_RESERVE_BYTES) {
                // a message's properties (the event's headers, key and CloudEvents attributes) travel in one frame
                throw new InvalidConfigurationException(
                        "rabbitmq." + ConnectionFactoryConfigurator.CONNECTION_FRAME_MAX,
                        "is " + frameMax + " bytes, but the properties of the largest event the outbox accepts take up "
                                + "to " + OutboxEvent.ENVELOPE_RESERVE_BYTES
                                + " (its headers, key and CloudEvents attributes) "
                                + "and must fit one frame; remove the setting (the broker's default is 131072) or set at least "
                                + OutboxEvent.ENVELOPE_RESERVE_BYTES);
            }
            return new RabbitMqPublisherConfig(this, effective, client);
        }

        /** The further settings, checked by name, with TLS on for amqps:// and validating by default. */
        private Map<String, String> clientProperties(boolean amqps) {
            Map<String, String> client = new TreeMap<>();
            for (Map.Entry<String, String> entry : properties.entrySet()) {
                String name = entry.getKey();
                if (name.equals("connection.recovery.enabled") || name.equals("topology.recovery.enabled")) {
                    throw new InvalidConfigurationException(
                            "rabbitmq." + name,
                            "is set by the publisher itself "
                                    + "(connection recovery always on, topology recovery always off: it declares nothing "
                                    + "and reopens its own channels); remove it");
                }
                if (name.equals("uri")) {
                    throw new InvalidConfigurationException(
                            "rabbitmq.uri", "give the URI with uri(...), not as a " + "client property");
                }
                if (!CLIENT_SETTINGS.contains(name)
                        && !name.startsWith(ConnectionFactoryConfigurator.CLIENT_PROPERTIES_PREFIX)) {
                    throw new InvalidConfigurationException(
                            "rabbitmq." + name,
                            "is not a RabbitMQ client setting "
                                    + "(typo?); known: "
                                    + CLIENT_SETTINGS.stream().sorted().toList()
                                    + " and client.properties.<name>");
                }
                client.put(name, entry.getValue());
            }
            if (amqps) {
                client.putIfAbsent(ConnectionFactoryConfigurator.SSL_ENABLED, "true");
            }
            if (Boolean.parseBoolean(client.get(ConnectionFactoryConfigurator.SSL_ENABLED))) {
                // amqp-client alone would trust any certificate and skip the host name check
                client.putIfAbsent(ConnectionFactoryConfigurator.SSL_VALIDATE_SERVER_CERTIFICATE, "true");
                client.putIfAbsent(ConnectionFactoryConfigurator.SSL_VERIFY_HOSTNAME, "true");
                if (!Boolean.parseBoolean(client.get(ConnectionFactoryConfigurator.SSL_VALIDATE_SERVER_CERTIFICATE))
                        && !client.containsKey(ConnectionFactoryConfigurator.SSL_TRUST_STORE)) {
                    client.put(ConnectionFactoryConfigurator.SSL_VERIFY_HOSTNAME, "false");
                }
            }
            return client;
        }

        /** Applies the settings one by one first, so that a value the client rejects is named. */
        private static void apply(ConnectionFactory factory, Map<String, String> client) {
            for (Map.Entry<String, String> entry : client.entrySet()) {
                if (entry.getKey().startsWith("ssl.")) {
                    continue;
                }
                try {
                    ConnectionFactoryConfigurator.load(
                            new ConnectionFactory(), Map.of(entry.getKey(), entry.getValue()), "");
                } catch (RuntimeException e) {
                    throw new InvalidConfigurationException(
                            "rabbitmq." + entry.getKey(),
                            "the RabbitMQ client " + "rejects the value: " + e.getMessage());
                }
            }
            try {
                RabbitMqPublisher.configure(factory, client);
            } catch (RuntimeException e) {
                throw new InvalidConfigurationException(
                        "rabbitmq.ssl", "the TLS settings (ssl.*) cannot be used: " + rootMessage(e));
            }
        }

        private static String rootMessage(Throwable e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + root + ")";
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
