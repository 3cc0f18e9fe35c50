package dev.outboxjava.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL cluster this test owns and may crash: created with the machine's own PostgreSQL
 * binaries ({@code pg_config --bindir}, or the system property {@code outbox.test.pg-bin}) in a
 * temporary directory, on a port of its own, never the shared server. Run as the {@code postgres}
 * OS user when the test runs as root (the server refuses root). Nothing but this test writes to it,
 * and nothing flushes the WAL behind the test's back: no autovacuum, no background writer rounds, no
 * timed checkpoint.
 */
final class CrashablePostgres implements AutoCloseable {

    private final Path binaries;
    private final Path dataDirectory;
    private final int port;
    private final boolean asPostgresUser;

    private CrashablePostgres(Path binaries, Path dataDirectory, int port, boolean asPostgresUser) {
        this.binaries = binaries;
        this.dataDirectory = dataDirectory;
        this.port = port;
        this.asPostgresUser = asPostgresUser;
    }

    /**
     * The binaries' directory, if this machine has PostgreSQL installed and the server can run here
     * (as root only through the {@code postgres} OS user).
     */
    static Optional<Path> binaries() {
        if ("root".equals(System.getProperty("user.name")) && !postgresUserExists()) {
            return Optional.empty();
        }
        return installedBinaries();
    }

    private static boolean postgresUserExists() {
        try {
            Process process = new ProcessBuilder("id", "postgres")
                    .redirectErrorStream(true)
                    .start();
            process.getInputStream().readAllBytes();
            return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Optional<Path> installedBinaries() {
        String configured = System.getProperty("outbox.test.pg-bin");
        if (configured != null) {
            return Optional.of(Path.of(configured));
        }
        try {
            Process process = new ProcessBuilder("pg_config", "--bindir")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (process.waitFor(30, TimeUnit.SECONDS)
                    && process.exitValue() == 0
                    && Files.isExecutable(Path.of(out, "initdb"))) {
                return Optional.of(Path.of(out));
            }
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.empty();
    }

    static CrashablePostgres start(Path binaries) throws IOException {
        boolean root = "root".equals(System.getProperty("user.name"));
        Path directory = Files.createTempDirectory("outbox-crashable-pg-");
        Path data = directory.resolve("data");
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        CrashablePostgres postgres = new CrashablePostgres(binaries, data, port, root);
        if (root) {
            postgres.run(List.of("chown", "postgres:", directory.toString()), false);
        }
        postgres.run(
                List.of(
                        binaries.resolve("initdb").toString(),
                        "-D",
                        data.toString(),
                        "-U",
                        "postgres",
                        "--auth=trust",
                        "-E",
                        "UTF8",
                        "--no-sync"),
                true);
        postgres.startServer();
        return postgres;
    }

    private void startServer() {
        String options = "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=''"
                + " -c autovacuum=off -c bgwriter_lru_maxpages=0 -c checkpoint_timeout=1h"
                + " -c restart_after_crash=on";
        run(
                List.of(
                        binaries.resolve("pg_ctl").toString(),
                        "-D",
                        dataDirectory.toString(),
                        "-o",
                        options,
                        "-l",
                        dataDirectory.resolveSibling("server.log").toString(),
                        "-w",
                        "-t",
                        "60",
                        "start"),
                true);
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), "postgres", "");
    }

    /** The process id of the server's WAL writer. */
    long walWriterPid() throws SQLException {
        try (Connection connection = connect();
                Statement statement = connection.createStatement();
                ResultSet rs =
                        statement.executeQuery("SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'")) {
            if (!rs.next()) {
                throw new IllegalStateException("no WAL writer in pg_stat_activity");
            }
            return rs.getLong(1);
        }
    }

    /**
     * Freezes the WAL writer (SIGSTOP): from now on an asynchronous commit stays in the server's WAL
     * buffers, in shared memory, until a synchronous commit flushes it.
     */
    void freezeWalWriter() throws SQLException {
        signal("STOP", walWriterPid());
    }

    /**
     * Crashes the server the way an immediate shutdown does: the frozen WAL writer is killed
     * (SIGKILL), so the postmaster stops every server process without a checkpoint or a WAL flush,
     * throws away shared memory (the WAL buffers with it) and restarts by replaying the WAL on disk.
     * Await {@link #recoveredFrom} before using it again.
     */
    void crash(long frozenWalWriterPid) {
        signal("KILL", frozenWalWriterPid);
    }

    /** Whether the server accepts connections again with a new WAL writer (the crash is behind it). */
    boolean recoveredFrom(long crashedWalWriterPid) {
        try {
            return walWriterPid() != crashedWalWriterPid;
        } catch (SQLException | IllegalStateException e) {
            return false;
        }
    }

    String log() {
        try {
            return Files.readString(dataDirectory.resolveSibling("server.log"));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private void signal(String signal, long pid) {
        run(List.of("kill", "-" + signal, Long.toString(pid)), false);
    }

    private void run(List<String> command, boolean asServerUser) {
        List<String> full = new ArrayList<>();
        if (asServerUser && asPostgresUser) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        try {
            Process process = new ProcessBuilder(full).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", full) + " failed: " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + full, e);
        }
    }

    @Override
    public void close() {
        try {
            run(
                    List.of(
                            binaries.resolve("pg_ctl").toString(),
                            "-D",
                            dataDirectory.toString(),
                            "-m",
                            "immediate",
                            "-w",
                            "stop"),
                    true);
        } catch (RuntimeException e) {
            // already stopped
        }
        try (var paths = Files.walk(dataDirectory.getParent())) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }
}
