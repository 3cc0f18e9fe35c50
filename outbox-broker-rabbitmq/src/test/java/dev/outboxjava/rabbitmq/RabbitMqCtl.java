package dev.outboxjava.rabbitmq;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Closes ONE connection of the local RabbitMQ by its client-provided name, through
 * {@code rabbitmqctl close_connection} — never all connections: other test runs share the broker.
 */
final class RabbitMqCtl {

    private RabbitMqCtl() {}

    static boolean isAvailable() {
        try {
            return run(List.of("rabbitmqctl", "-q", "list_connections", "name")).exitCode == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** The Erlang pid of the connection named {@code connectionName}; fails when there is none. */
    static String connectionPid(String connectionName) throws IOException {
        Result listing = run(List.of("rabbitmqctl", "-q", "list_connections", "pid", "client_properties"));
        String marker = "\"" + connectionName + "\"";
        for (String line : listing.output.split("\n")) {
            if (line.contains(marker)) {
                return line.substring(0, line.indexOf('\t')).trim();
            }
        }
        throw new IllegalStateException("no RabbitMQ connection named '" + connectionName + "' in:\n" + listing.output);
    }

    /** Forcibly closes the connection named {@code connectionName}. */
    static void closeConnection(String connectionName) throws IOException {
        String pid = connectionPid(connectionName);
        Result closed = run(List.of("rabbitmqctl", "close_connection", pid, "outbox test: forced close"));
        if (closed.exitCode != 0) {
            throw new IllegalStateException("rabbitmqctl close_connection " + pid + " failed: " + closed.output);
        }
    }

    private record Result(int exitCode, String output) {}

    private static Result run(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("timed out: " + command);
            }
            return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + command, e);
        }
    }
}
