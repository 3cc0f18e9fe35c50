package dev.outboxjava.testkit.kafka;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Apache Kafka broker in this JVM: KRaft mode, one process acting as broker and
 * controller, built from the {@code org.apache.kafka:kafka_2.13} Maven artifact. No Docker, no
 * download, ready in a few seconds.
 *
 * <p>The log directory is formatted once with Kafka's storage {@link Formatter} (what
 * {@code kafka-storage.sh format} does) and the server is a {@link KafkaRaftServer}. The broker
 * can be {@linkplain #stop() stopped} and {@linkplain #restart() restarted} on the same log
 * directory and the same ports, so clients keep their bootstrap address and topics and records
 * survive: that is what outage tests need. {@link #close()} stops the broker and deletes its
 * directory.
 *
 * <p>Topics are not created automatically ({@code auto.create.topics.enable=false}): tests create
 * the topics they use with {@link #createTopic(String, int)}, and a publish to a missing topic
 * behaves as it does on a production cluster that forbids auto-creation.
 *
 * <p>Kafka calls {@code System.exit} on some fatal errors; while an embedded broker is running,
 * Kafka's {@code Exit} procedures are replaced by ones that throw, so a broker failure fails a test
 * instead of ending the JVM.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);
    private static final int NODE_ID = 1;
    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

    private final Path directory;
    private final int brokerPort;
    private final int controllerPort;
    private final Map<String, String> overrides;
    private final SslListener ssl;
    private final int sslPort;
    private KafkaRaftServer server;
    private boolean closed;

    private EmbeddedKafkaBroker(
            Path directory,
            int brokerPort,
            int controllerPort,
            Map<String, String> overrides,
            SslListener ssl,
            int sslPort) {
        this.directory = directory;
        this.brokerPort = brokerPort;
        this.controllerPort = controllerPort;
        this.overrides = Map.copyOf(overrides);
        this.ssl = ssl;
        this.sslPort = sslPort;
    }

    /**
     * A TLS listener besides the plaintext one: the broker presents the key and certificate of
     * {@code keyStore} (whose store and key password are both {@code password}) on
     * {@link #sslBootstrapServers()}; clients must trust that certificate. The plaintext listener
     * stays for the broker itself and for test clients.
     *
     * @param keyStore the key store file
     * @param password the key store's password, also the key's
     * @param type     the key store type, e.g. {@code PKCS12}
     */
    public record SslListener(Path keyStore, String password, String type) {
        public SslListener {
            java.util.Objects.requireNonNull(keyStore, "keyStore");
            java.util.Objects.requireNonNull(password, "password");
            java.util.Objects.requireNonNull(type, "type");
        }
    }

    /** Like {@link #start()}, with an extra TLS listener (see {@link SslListener}). */
    public static EmbeddedKafkaBroker startWithSsl(SslListener ssl) {
        java.util.Objects.requireNonNull(ssl, "ssl");
        return start(Path.of(System.getProperty("java.io.tmpdir")), Map.of(), ssl);
    }

    /** Formats a fresh temporary log directory, picks two free ports and starts the broker. */
    public static EmbeddedKafkaBroker start() {
        return start(Map.of());
    }

    /**
     * Like {@link #start()}, with extra broker settings (e.g. {@code message.max.bytes}) that
     * replace the defaults of this class.
     */
    public static EmbeddedKafkaBroker start(Map<String, String> brokerOverrides) {
        return start(Path.of(System.getProperty("java.io.tmpdir")), brokerOverrides);
    }

    /**
     * Like {@link #start(Map)}, with the log directory created under {@code parent} instead of the
     * temporary directory — e.g. a memory file system, so that the broker's writes do not compete for
     * the disk with a database on the same machine.
     */
    public static EmbeddedKafkaBroker start(Path parent, Map<String, String> brokerOverrides) {
        return start(parent, brokerOverrides, null);
    }

    private static EmbeddedKafkaBroker start(Path parent, Map<String, String> brokerOverrides, SslListener ssl) {
        Path directory;
        try {
            directory = Files.createTempDirectory(parent, "outbox-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot create a log directory for the embedded Kafka broker under " + parent, e);
        }
        int[] ports = freePorts(ssl == null ? 2 : 3);
        EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker(
                directory, ports[0], ports[1], brokerOverrides, ssl, ssl == null ? 0 : ports[2]);
        try {
            broker.format();
            broker.startServer();
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
        return broker;
    }

    /** {@code 127.0.0.1:port} of the client listener; stays the same across restarts. */
    public String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    /**
     * {@code 127.0.0.1:port} of the TLS listener; stays the same across restarts.
     *
     * @throws IllegalStateException when the broker was started without one
     */
    public String sslBootstrapServers() {
        if (ssl == null) {
            throw new IllegalStateException(
                    "this embedded Kafka broker has no TLS listener: start it with startWithSsl");
        }
        return "127.0.0.1:" + sslPort;
    }

    /** Whether the broker is running (started and not stopped). */
    public synchronized boolean isRunning() {
        return server != null;
    }

    /**
     * Stops the broker, keeping its log directory: clients see a broker outage. Does nothing if it
     * is already stopped.
     */
    public synchronized void stop() {
        if (server == null) {
            return;
        }
        long started = System.nanoTime();
        KafkaRaftServer running = server;
        server = null;
        running.shutdown();
        running.awaitShutdown();
        log.info("embedded Kafka broker {} stopped in {} ms", bootstrapServers(), elapsedMillis(started));
    }

    /**
     * Starts the broker again on the same log directory and ports; topics and records written
     * before {@link #stop()} are still there. Does nothing if it is running.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("the embedded Kafka broker was closed; start a new one");
        }
        if (server == null) {
            startServer();
        }
    }

    /**
     * Creates a topic with replication factor 1 and waits until every partition takes records (see
     * {@link KafkaTopics}); an existing topic is left as it is.
     */
    public void createTopic(String name, int partitions) {
        try (Admin admin = admin()) {
            KafkaTopics.createAndAwaitReady(admin, name, partitions, ADMIN_TIMEOUT, bootstrapServers());
        }
    }

    /** A new admin client for this broker; the caller closes it. */
    public Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                (int) ADMIN_TIMEOUT.toMillis()));
    }

    /** Stops the broker and deletes its log directory. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop();
        } finally {
            deleteDirectory();
        }
    }

    private void format() {
        String logDir = logDirectory().toString();
        Formatter formatter = new Formatter()
                .setPrintStream(new PrintStream(new LogLines(), true, StandardCharsets.UTF_8))
                .setNodeId(NODE_ID)
                .setClusterId(Uuid.randomUuid().toString())
                .setControllerListenerName(CONTROLLER_LISTENER)
                .setMetadataLogDirectory(logDir)
                .addDirectory(logDir);
        try {
            formatter.run();
        } catch (Exception e) {
            throw new IllegalStateException("cannot format the embedded Kafka log directory " + logDir, e);
        }
    }

    private void startServer() {
        long started = System.nanoTime();
        installExitGuard();
        KafkaRaftServer created = new KafkaRaftServer(KafkaConfig.fromProps(brokerProperties(), false), Time.SYSTEM);
        try {
            created.startup();
        } catch (RuntimeException e) {
            created.shutdown();
            throw new IllegalStateException(
                    "the embedded Kafka broker did not start on " + bootstrapServers() + " (log directory " + directory
                            + ")",
                    e);
        }
        server = created;
        log.info(
                "embedded Kafka broker (KRaft, broker+controller) listening on {} after {} ms; log directory {}",
                bootstrapServers(),
                elapsedMillis(started),
                directory);
    }

    private Properties brokerProperties() {
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", String.valueOf(NODE_ID));
        props.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
        props.put(
                "listeners",
                "PLAINTEXT://127.0.0.1:" + brokerPort + "," + CONTROLLER_LISTENER + "://127.0.0.1:" + controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        props.put("controller.listener.names", CONTROLLER_LISTENER);
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        props.put("log.dirs", logDirectory().toString());
        props.put("auto.create.topics.enable", "false");
        props.put("num.partitions", "1");
        props.put("default.replication.factor", "1");
        props.put("min.insync.replicas", "1");
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        // A small machine shared with other tests: few threads, and a fast controlled shutdown.
        props.put("num.network.threads", "2");
        props.put("num.io.threads", "2");
        props.put("background.threads", "2");
        props.put("log.cleaner.enable", "false");
        // A restart re-registers the same node id: the controller accepts that only once the old
        // registration was fenced (controlled shutdown) or its session expired.
        props.put("controlled.shutdown.enable", "true");
        props.put("broker.heartbeat.interval.ms", "500");
        props.put("broker.session.timeout.ms", "3000");
        props.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
        if (ssl != null) {
            props.put(
                    "listeners",
                    "PLAINTEXT://127.0.0.1:" + brokerPort + ",SSL://127.0.0.1:" + sslPort + "," + CONTROLLER_LISTENER
                            + "://127.0.0.1:" + controllerPort);
            props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",SSL://127.0.0.1:" + sslPort);
            props.put(
                    "listener.security.protocol.map",
                    "PLAINTEXT:PLAINTEXT,SSL:SSL," + CONTROLLER_LISTENER + ":PLAINTEXT");
            props.put("ssl.keystore.location", ssl.keyStore().toAbsolutePath().toString());
            props.put("ssl.keystore.password", ssl.password());
            props.put("ssl.key.password", ssl.password());
            props.put("ssl.keystore.type", ssl.type());
            props.put("ssl.client.auth", "none");
        }
        props.putAll(overrides);
        return props;
    }

    private Path logDirectory() {
        return directory.resolve("kraft-combined-logs");
    }

    private void deleteDirectory() {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            log.warn("could not delete the embedded Kafka directory {}: {}", directory, e.toString());
        }
    }

    /**
     * Kafka's {@code Exit} moved from {@code org.apache.kafka.common.utils} to its {@code internals}
     * package in 4.4; found by name, so that the broker also runs on the older clients an application's
     * framework may manage (Spring Boot 4.0 manages 4.1).
     */
    private static final List<String> EXIT_CLASSES =
            List.of("org.apache.kafka.common.utils.internals.Exit", "org.apache.kafka.common.utils.Exit");

    private static void installExitGuard() {
        for (String name : EXIT_CLASSES) {
            Class<?> exit;
            try {
                exit = Class.forName(name, true, EmbeddedKafkaBroker.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                continue;
            }
            try {
                Class<?> procedure = Class.forName(name + "$Procedure", true, exit.getClassLoader());
                exit.getMethod("setExitProcedure", procedure).invoke(null, refusing(procedure, "exit"));
                exit.getMethod("setHaltProcedure", procedure).invoke(null, refusing(procedure, "halt"));
                return;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot guard the embedded Kafka broker's JVM exit through " + name, e);
            }
        }
        throw new IllegalStateException("no Kafka Exit class found among " + EXIT_CLASSES);
    }

    /** A {@code Procedure} that throws instead of ending the JVM. */
    private static Object refusing(Class<?> procedure, String what) {
        return java.lang.reflect.Proxy.newProxyInstance(
                procedure.getClassLoader(), new Class<?>[] {procedure}, (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return switch (method.getName()) {
                            case "equals" -> proxy == args[0];
                            case "hashCode" -> System.identityHashCode(proxy);
                            default -> "refusing Kafka " + what + " procedure";
                        };
                    }
                    throw new IllegalStateException(
                            "embedded Kafka asked to " + what + " the JVM with status " + args[0] + ": " + args[1]);
                });
    }

    /**
     * {@code count} different free loopback ports: the sockets stay open until all are taken, because a
     * port closed before the next is asked for can be handed out again (two listeners on one port).
     */
    static int[] freePorts(int count) {
        ServerSocket[] sockets = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets[i].setReuseAddress(true);
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free local port for the embedded Kafka broker", e);
        } finally {
            for (ServerSocket socket : sockets) {
                closeQuietly(socket);
            }
        }
    }

    private static void closeQuietly(ServerSocket socket) {
        if (socket == null) {
            return;
        }
        try {
            socket.close();
        } catch (IOException e) {
            // the port was only held to keep it from being handed out twice
        }
    }

    private static long elapsedMillis(long startedNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }

    /** Sends the storage formatter's console output to the log, line by line. */
    private static final class LogLines extends OutputStream {
        private final StringBuilder line = new StringBuilder();

        @Override
        public void write(int b) {
            if (b == '\n') {
                flushLine();
            } else {
                line.append((char) b);
            }
        }

        @Override
        public void flush() {
            flushLine();
        }

        private void flushLine() {
            if (!line.isEmpty()) {
                log.debug("kafka-storage format: {}", line);
                line.setLength(0);
            }
        }
    }
}
