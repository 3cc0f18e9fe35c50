package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * A real PgBouncer (the Debian package's {@code pgbouncer}) in front of the test PostgreSQL, with the pools
 * docs/poolers.md describes: {@value #TRANSACTION_POOL} in transaction mode (what applications use) and
 * {@value #SESSION_POOL} in session mode (what the relay uses). Missing, it skips the calling test on a
 * developer's machine and fails it in CI, which installs the package.
 */
final class PgBouncer implements AutoCloseable {

    static final String TRANSACTION_POOL = "outbox_tx";
    static final String SESSION_POOL = "outbox_session";

    private final Process process;
    private final int port;
    private final Path directory;

    private PgBouncer(Process process, int port, Path directory) {
        this.process = process;
        this.port = port;
        this.directory = directory;
    }

    /**
     * Starts PgBouncer on a free port, in front of the database of {@code jdbcUrl}.
     *
     * @param transactionPoolSize server connections of the transaction pool: fewer than the clients, so that
     *     a client's transactions run on different server connections, as they do in production
     */
    static PgBouncer start(String jdbcUrl, String user, int transactionPoolSize) throws IOException {
        Path executable = require();
        URI database = URI.create(jdbcUrl.substring("jdbc:".length()));
        String server = "host=" + database.getHost() + " port=" + (database.getPort() < 0 ? 5432 : database.getPort())
                + " dbname=" + database.getPath().substring(1);
        int port = freePort();
        Path directory = Files.createTempDirectory("outbox-pgbouncer-");
        // pgbouncer refuses to run as root; started as root it switches to the postgres user (-u), who must read these
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path users = Files.writeString(directory.resolve("userlist.txt"), "\"" + user + "\" \"\"\n");
        Path ini = Files.writeString(
                directory.resolve("pgbouncer.ini"),
                String.join(
                        "\n",
                        "[databases]",
                        TRANSACTION_POOL + " = " + server + " pool_mode=transaction pool_size=" + transactionPoolSize,
                        SESSION_POOL + " = " + server + " pool_mode=session pool_size=20",
                        "[pgbouncer]",
                        "listen_addr = 127.0.0.1",
                        "listen_port = " + port,
                        "unix_socket_dir =",
                        "auth_type = trust",
                        "auth_file = " + users,
                        "max_client_conn = 200",
                        // pgjdbc sends extra_float_digits at connect; PgBouncer refuses unknown startup parameters
                        "ignore_startup_parameters = extra_float_digits",
                        ""));
        for (Path file : List.of(users, ini)) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        }
        List<String> command = new ArrayList<>(List.of(executable.toString()));
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("-u", "postgres"));
        }
        command.add(ini.toString());
        Path log = directory.resolve("pgbouncer.log");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        PgBouncer bouncer = new PgBouncer(process, port, directory);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new AssertionError("pgbouncer exited: " + Files.readString(log));
                    }
                    try (Socket socket = new Socket()) {
                        socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
                        return true;
                    } catch (IOException e) {
                        return false;
                    }
                });
        return bouncer;
    }

    /** The JDBC URL of one of the pools, with {@code parameters} ({@code prepareThreshold=0}) if any. */
    String jdbcUrl(String pool, String parameters) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + pool + (parameters.isEmpty() ? "" : "?" + parameters);
    }

    String log() throws IOException {
        return Files.readString(directory.resolve("pgbouncer.log"));
    }

    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try (var files = Files.list(directory)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(directory);
    }

    private static Path require() {
        Optional<Path> found = Arrays.stream((System.getenv().getOrDefault("PATH", "") + ":/usr/sbin").split(":"))
                .filter(dir -> !dir.isBlank())
                .map(dir -> Path.of(dir, "pgbouncer"))
                .filter(Files::isExecutable)
                .findFirst();
        if (found.isEmpty()) {
            String message =
                    "pgbouncer is not installed: 'apt-get install pgbouncer' (.ci/run does so when it is missing)";
            if (System.getenv("CI") != null) {
                fail(message + "; CI must run this test");
            }
            Assumptions.abort(message);
        }
        return found.get();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
