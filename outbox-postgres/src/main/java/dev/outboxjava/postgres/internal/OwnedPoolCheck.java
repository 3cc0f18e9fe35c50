package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.InvalidConfigurationException;

/**
 * Whether {@link OwnedPool} can be used: HikariCP is an optional dependency, and linking that class
 * without it fails with a {@code NoClassDefFoundError} that tells the user nothing. Kept apart from it so
 * that the check does not link it.
 */
public final class OwnedPoolCheck {

    private OwnedPoolCheck() {}

    /** @throws InvalidConfigurationException naming what to add when HikariCP is not on the class path */
    public static void requireHikari() {
        try {
            // OwnedPool.HIKARI is a constant, inlined by javac: naming it does not link OwnedPool
            Class.forName(OwnedPool.HIKARI, false, OwnedPoolCheck.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new InvalidConfigurationException(
                    "jdbcUrl",
                    "a store created from a JDBC URL opens a HikariCP pool, and HikariCP is not on the class path: "
                            + "add com.zaxxer:HikariCP, or create the store on your own DataSource");
        }
    }
}
