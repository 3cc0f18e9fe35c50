package dev.outboxjava.it.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Closes RabbitMQ connections by their client-provided name, with {@code rabbitmqctl close_connection}:
 * the broker drops the connection as it does in an outage, but only the relays' own connections, so a
 * broker shared with other users is not disturbed. (On a dedicated machine, {@code rabbitmqctl stop_app}
 * / {@code start_app} is the bigger hammer; never use it, nor {@code close_all_connections}, on a shared
 * broker.) Needs {@code rabbitmqctl} on the {@code PATH} with access to the node.
 */
public final class RabbitMqConnectionCloser {

    private final String namePrefix;
    private final String rabbitmqctl;

    /**
     * @param namePrefix  the client-provided connection names to close start with this
     * @param rabbitmqctl the command, e.g. {@code rabbitmqctl} (or {@code /usr/sbin/rabbitmqctl})
     */
    public RabbitMqConnectionCloser(String namePrefix, String rabbitmqctl) {
        this.namePrefix = Objects.requireNonNull(namePrefix, "namePrefix");
        if (namePrefix.isBlank()) {
            throw new IllegalArgumentException("namePrefix must not be blank: it would close every connection");
        }
        this.rabbitmqctl = Objects.requireNonNull(rabbitmqctl, "rabbitmqctl");
    }

    /**
     * Closes every connection whose client-provided name starts with the prefix.
     *
     * @return how many were closed
     */
    public int closeConnections(String reason) throws IOException, InterruptedException {
        int closed = 0;
        for (String pid : matchingPids()) {
            run(List.of(rabbitmqctl, "-q", "close_connection", pid, reason));
            closed++;
        }
        return closed;
    }

    /** The Erlang pids of the matching connections. */
    public List<String> matchingPids() throws IOException, InterruptedException {
        String listing =
                run(List.of(rabbitmqctl, "-q", "list_connections", "--no-table-headers", "pid", "client_properties"));
        List<String> pids = new ArrayList<>();
        // RabbitMQ 3.x/4.x print {"connection_name","name"}; older nodes <<"connection_name">>,longstr,<<"name">>
        String current = "{\"connection_name\",\"" + namePrefix;
        String older = "<<\"connection_name\">>,longstr,<<\"" + namePrefix;
        for (String line : listing.split("\n")) {
            int tab = line.indexOf('\t');
            if (tab > 0 && (line.contains(current) || line.contains(older))) {
                pids.add(line.substring(0, tab).trim());
            }
        }
        return pids;
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish within 60 s");
        }
        String text = new String(output, StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new IOException(
                    String.join(" ", command) + " failed with exit code " + process.exitValue() + ": " + text.strip());
        }
        return text;
    }
}
