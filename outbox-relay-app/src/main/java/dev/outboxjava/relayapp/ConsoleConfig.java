package dev.outboxjava.relayapp;

import java.util.Objects;
import java.util.Optional;

/**
 * Whether and where the standalone process serves the web console.
 *
 * @param enabled    whether it is served
 * @param host       address to bind (loopback by default)
 * @param port       TCP port
 * @param adminToken the admin credential; empty = read-only
 */
public record ConsoleConfig(boolean enabled, String host, int port, Optional<String> adminToken) {

    public ConsoleConfig {
        Objects.requireNonNull(host, "host");
        adminToken = adminToken.filter(token -> !token.isEmpty());
    }

    /** Never shows the credential. */
    @Override
    public String toString() {
        return "ConsoleConfig[enabled=" + enabled + ", host=" + host + ", port=" + port + ", adminToken="
                + (adminToken.isPresent() ? "***" : "none") + "]";
    }
}
