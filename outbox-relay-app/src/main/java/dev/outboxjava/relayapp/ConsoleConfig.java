package dev.outboxjava.relayapp;

import java.util.Optional;

/**
 * Whether the standalone process serves the web console (under {@code /console} on its HTTP server),
 * and to whom.
 *
 * @param enabled     whether it is served
 * @param allowRemote whether clients on other machines may use it (default: loopback only)
 * @param adminToken  the admin credential; empty = read-only
 */
public record ConsoleConfig(boolean enabled, boolean allowRemote, Optional<String> adminToken) {

    public ConsoleConfig {
        adminToken = adminToken.filter(token -> !token.isEmpty());
    }

    /** Never shows the credential. */
    @Override
    public String toString() {
        return "ConsoleConfig[enabled=" + enabled + ", allowRemote=" + allowRemote + ", adminToken="
                + (adminToken.isPresent() ? "***" : "none") + "]";
    }
}
