package dev.outboxjava.relayapp;

import java.util.Objects;

/**
 * Where the standalone process serves {@code /metrics}, {@code /health} and {@code /health/ready}.
 *
 * @param host address to bind
 * @param port TCP port; 0 = no HTTP server
 */
public record HttpConfig(String host, int port) {

    /** Default port: 8080. */
    public static final int DEFAULT_PORT = 8080;

    public HttpConfig {
        Objects.requireNonNull(host, "host");
    }

    /** Whether the server is switched on. */
    public boolean enabled() {
        return port != 0;
    }
}
