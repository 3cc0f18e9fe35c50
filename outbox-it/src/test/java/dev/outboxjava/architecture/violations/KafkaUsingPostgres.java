// Fixture for ArchitectureTest: deliberately breaks "adapters never depend on each other".
package dev.outboxjava.kafka.archviolation;

import dev.outboxjava.postgres.PostgresOutboxStore;

/** A Kafka-adapter class that knows the PostgreSQL adapter. */
public final class KafkaUsingPostgres {

    private KafkaUsingPostgres() {}

    public static String storeName(PostgresOutboxStore store) {
        return store.toString();
    }
}
