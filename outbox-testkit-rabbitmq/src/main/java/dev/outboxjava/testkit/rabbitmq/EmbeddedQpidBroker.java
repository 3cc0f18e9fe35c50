package dev.outboxjava.testkit.rabbitmq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.qpid.server.SystemLauncher;
import org.apache.qpid.server.SystemLauncherListener;
import org.apache.qpid.server.model.Broker;
import org.apache.qpid.server.model.Port;
import org.apache.qpid.server.model.SystemConfig;
import org.apache.qpid.server.model.port.AmqpPort;

/**
 * An Apache Qpid Broker-J inside this JVM, speaking AMQP 0-9-1 on an ephemeral port with one
 * in-memory virtual host and the user {@code guest}/{@code guest}; optionally also AMQP over TLS
 * ({@code amqps}) on a second port ({@link #startWithTls}). Nothing is written but a scratch work
 * directory, removed on {@link #close()}.
 */
public final class EmbeddedQpidBroker implements AutoCloseable {

    /** The one user's name. */
    public static final String USERNAME = "guest";
    /** The one user's password. */
    public static final String PASSWORD = "guest";

    // Port 0: the OS picks a free port; PLAIN is allowed without TLS (the RabbitMQ client's default
    // mechanism); the default alias maps the client's virtual host "/" to the in-memory host.
    private static final String CONFIG = """
            {
              "name": "outbox-embedded-amqp",
              "modelVersion": "9.0",
              "authenticationproviders": [ {
                "name": "plain", "type": "Plain", "secureOnlyMechanisms": [],
                "users": [ { "name": "%s", "password": "%s", "type": "managed" } ]
              } ],
              "ports": [ {
                "name": "AMQP", "port": "0", "bindingAddress": "127.0.0.1", "authenticationProvider": "plain",
                "protocols": [ "AMQP_0_9_1", "AMQP_0_9", "AMQP_0_8" ],
                "virtualhostaliases": [ { "name": "nameAlias", "type": "nameAlias" },
                                        { "name": "defaultAlias", "type": "defaultAlias" } ]
              } ],
              "virtualhostnodes": [ {
                "name": "default", "type": "Memory", "defaultVirtualHostNode": "true",
                "virtualHostInitialConfiguration": "{\\"type\\": \\"Memory\\"}"
              } ]
            }
            """.formatted(USERNAME, PASSWORD);

    // A second AMQP port whose transport is TLS, presenting the key store's certificate.
    private static final String TLS_PORT = """
            {
              "name": "AMQPS", "port": "0", "bindingAddress": "127.0.0.1", "authenticationProvider": "plain",
              "transports": [ "SSL" ], "keyStore": "tls",
              "protocols": [ "AMQP_0_9_1", "AMQP_0_9", "AMQP_0_8" ],
              "virtualhostaliases": [ { "name": "nameAlias", "type": "nameAlias" },
                                      { "name": "defaultAlias", "type": "defaultAlias" } ]
            }""";
    private static final String TLS_KEY_STORE = """
            "keystores": [ {
              "name": "tls", "type": "FileKeyStore", "storeUrl": "%s", "password": "%s", "keyStoreType": "%s"
            } ]""";

    private final SystemLauncher launcher;
    private final Path workDir;
    private final int port;
    private final int tlsPort;

    private EmbeddedQpidBroker(SystemLauncher launcher, Path workDir, int port, int tlsPort) {
        this.launcher = launcher;
        this.workDir = workDir;
        this.port = port;
        this.tlsPort = tlsPort;
    }

    /** Starts a broker; fails with {@link IllegalStateException} when Qpid cannot start. */
    public static EmbeddedQpidBroker start() {
        return start(CONFIG);
    }

    /**
     * Starts a broker that also speaks AMQP over TLS on {@link #tlsPort()}, presenting the key and
     * certificate of {@code keyStore}.
     *
     * @param keyStore the server's key store file
     * @param password its password (also the key's)
     * @param type     its type, e.g. {@code PKCS12}
     */
    public static EmbeddedQpidBroker startWithTls(Path keyStore, String password, String type) {
        int close = CONFIG.lastIndexOf(']', CONFIG.indexOf("\"virtualhostnodes\""));
        if (close < 0 || CONFIG.charAt(close + 1) != ',') {
            throw new IllegalStateException("the embedded Qpid configuration has changed shape");
        }
        String keyStores = TLS_KEY_STORE.formatted(keyStore.toAbsolutePath().toUri(), password, type);
        return start(
                CONFIG.substring(0, close) + ", " + TLS_PORT + " ], " + keyStores + "," + CONFIG.substring(close + 2));
    }

    private static EmbeddedQpidBroker start(String configuration) {
        Path workDir;
        try {
            workDir = Files.createTempDirectory("outbox-qpid-");
            Path config = workDir.resolve("initial-config.json");
            Files.writeString(config, configuration, StandardCharsets.UTF_8);
            ContainerCapture capture = new ContainerCapture();
            SystemLauncher launcher = new SystemLauncher(capture);
            Map<String, Object> attributes = new HashMap<>();
            attributes.put(SystemConfig.TYPE, "Memory");
            attributes.put(
                    SystemConfig.INITIAL_CONFIGURATION_LOCATION, config.toUri().toString());
            attributes.put(SystemConfig.STARTUP_LOGGED_TO_SYSTEM_OUT, false);
            attributes.put(
                    "context",
                    Map.of(
                            "qpid.work_dir",
                            workDir.toString(),
                            "qpid.broker.defaultPreferenceStoreAttributes",
                            "{\"type\": \"Noop\"}"));
            try {
                launcher.startup(attributes);
            } catch (Exception e) {
                launcher.shutdown();
                deleteRecursively(workDir);
                throw new IllegalStateException("could not start the embedded Qpid Broker-J: " + e, e);
            }
            return new EmbeddedQpidBroker(
                    launcher,
                    workDir,
                    boundPort(capture.systemConfig, "AMQP"),
                    configuration.contains("\"AMQPS\"") ? boundPort(capture.systemConfig, "AMQPS") : 0);
        } catch (IOException e) {
            throw new UncheckedIOException("could not prepare the embedded Qpid Broker-J work directory", e);
        }
    }

    private static int boundPort(SystemConfig<?> systemConfig, String name) {
        if (systemConfig == null) {
            throw new IllegalStateException("the embedded Qpid Broker-J started without a system configuration");
        }
        Broker<?> broker = systemConfig.getContainer(Broker.class);
        for (Port<?> port : broker.getPorts()) {
            if (port instanceof AmqpPort<?> amqp && port.getName().equals(name)) {
                return amqp.getBoundPort();
            }
        }
        throw new IllegalStateException("the embedded Qpid Broker-J started without an AMQP port named " + name);
    }

    /** Remembers the broker's system configuration, the way to reach its ports (the launcher hides it). */
    private static final class ContainerCapture extends SystemLauncherListener.DefaultSystemLauncherListener {
        private volatile SystemConfig<?> systemConfig;

        @Override
        public void onContainerResolve(SystemConfig<?> resolved) {
            this.systemConfig = resolved;
        }
    }

    /** The plaintext AMQP port on 127.0.0.1. */
    public int port() {
        return port;
    }

    /**
     * The TLS AMQP port on 127.0.0.1.
     *
     * @throws IllegalStateException when the broker was started without TLS
     */
    public int tlsPort() {
        if (tlsPort == 0) {
            throw new IllegalStateException("this embedded Qpid broker has no TLS port: start it with startWithTls");
        }
        return tlsPort;
    }

    /** Stops the broker and removes its work directory. */
    @Override
    public void close() {
        try {
            launcher.shutdown();
        } finally {
            deleteRecursively(workDir);
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a leftover temp directory is harmless
        }
    }
}
