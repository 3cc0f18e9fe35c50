package dev.outboxjava.relayapp.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxjava.console.OutboxConsole;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.relayapp.HttpConfig;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.worker.OutboxWorker;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Collections;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The console shares the HTTP server of the health and metrics endpoints: they answer every client, the
 * console only clients on this machine unless remote clients are allowed.
 */
@DisplayName("the web console on the HTTP port")
class ConsoleOnHttpPortTest {

    private final InMemoryOutboxStore store = new InMemoryOutboxStore();
    private final HttpClient client = HttpClient.newHttpClient();

    /** An address of this machine that is not a loopback one: a request to it comes from a remote-looking client. */
    private static Optional<String> nonLoopbackAddress() throws Exception {
        for (NetworkInterface network : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!network.isUp() || network.isLoopback()) {
                continue;
            }
            for (InetAddress address : Collections.list(network.getInetAddresses())) {
                if (address instanceof Inet4Address && !address.isLoopbackAddress() && !address.isLinkLocalAddress()) {
                    return Optional.of(address.getHostAddress());
                }
            }
        }
        return Optional.empty();
    }

    private int status(String host, int port, String path) throws Exception {
        return client.send(
                        HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .statusCode();
    }

    private HttpResponse<String> get(String host, int port, String path) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @DisplayName("health and metrics answer every client; the console only local ones, unless allowed")
    void consoleLocalOnly() throws Exception {
        Optional<String> remote = nonLoopbackAddress();
        assumeTrue(remote.isPresent(), "needs a network interface besides loopback");
        PrometheusMeterRegistry registry = StandaloneModules.prometheus();
        try (OutboxWorker worker = OutboxWorker.builder()
                .store(store)
                .publisher(new RecordingPublisher())
                .meterRegistry(registry)
                .build()) {
            worker.start();
            OutboxConsole localOnly = OutboxConsole.builder(store).build();
            try (HealthHttpServer server =
                    HealthHttpServer.start(new HttpConfig("0.0.0.0", 0), registry, worker, Optional.of(localOnly))) {
                int port = server.port();
                assertThat(status("127.0.0.1", port, "/console")).isEqualTo(200);
                assertThat(status("127.0.0.1", port, "/console/dead-letters")).isEqualTo(200);
                assertThat(status(remote.get(), port, "/health")).isEqualTo(200);
                assertThat(status(remote.get(), port, "/metrics")).isEqualTo(200);
                HttpResponse<String> refused = get(remote.get(), port, "/console/dead-letters");
                assertThat(refused.statusCode()).isEqualTo(403);
                assertThat(refused.body()).contains("only clients on this machine");
                assertThat(status(remote.get(), port, "/console")).isEqualTo(403);
            }
            OutboxConsole open =
                    OutboxConsole.builder(store).allowRemoteClients(true).build();
            try (HealthHttpServer server =
                    HealthHttpServer.start(new HttpConfig("0.0.0.0", 0), registry, worker, Optional.of(open))) {
                assertThat(status(remote.get(), server.port(), "/console/dead-letters"))
                        .isEqualTo(200);
            }
        }
    }
}
