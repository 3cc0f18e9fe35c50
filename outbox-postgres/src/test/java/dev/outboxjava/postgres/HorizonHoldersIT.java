package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.postgres.health.DatabaseHealthReport;
import dev.outboxjava.postgres.health.OpenTransaction;
import dev.outboxjava.postgres.health.PostgresHealthProbe;
import dev.outboxjava.postgres.health.ReplicationSlotHold;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The health probe names what holds the xmin horizon back, against real PostgreSQL: a session's
 * snapshot on the shared server (in a database of the test's own, since the signal is database wide),
 * and a prepared transaction and a replication slot on an embedded server the test owns (the shared
 * one allows neither: {@code max_prepared_transactions = 0}, {@code wal_level = replica}).
 */
class HorizonHoldersIT {

    @Test
    @DisplayName("a session idle in a REPEATABLE READ transaction is named with its pid, application, client and times")
    void sessionHoldingASnapshotIsNamed() throws Exception {
        try (ScratchDatabase database = new ScratchDatabase("horizon")) {
            String application =
                    "horizon-holder-" + UUID.randomUUID().toString().substring(0, 8);
            PGSimpleDataSource holderSource = new PGSimpleDataSource();
            holderSource.setUrl(database.dataSource().getUrl());
            holderSource.setUser(database.dataSource().getUser());
            holderSource.setPassword(database.dataSource().getPassword());
            holderSource.setApplicationName(application);
            PostgresHealthProbe probe = PostgresHealthProbe.create(
                    database.dataSource(), "outbox_events", StoreLayout.IN_PLACE, Optional.empty());
            int pid;
            try (Connection holder = holderSource.getConnection()) {
                holder.setAutoCommit(false);
                holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                try (Statement statement = holder.createStatement();
                        ResultSet row = statement.executeQuery("SELECT pg_backend_pid()")) {
                    row.next();
                    pid = row.getInt(1);
                }
                // the snapshot is taken by the first statement and held while the session idles

                DatabaseHealthReport report = probe.read(Instant.now());

                OpenTransaction oldest = report.oldestTransaction().orElseThrow();
                assertThat(oldest.pid()).isEqualTo(pid);
                assertThat(oldest.applicationName()).isEqualTo(application);
                assertThat(oldest.state()).isEqualTo("idle in transaction");
                assertThat(oldest.clientAddress()).startsWith("127.0.0.1:");
                assertThat(oldest.user()).isEqualTo(database.dataSource().getUser());
                assertThat(oldest.queryStart()).isPresent();
                assertThat(oldest.queryStart().get()).isAfterOrEqualTo(oldest.transactionStart());
                assertThat(oldest.describe())
                        .startsWith(
                                "pid " + pid + " (" + application + "), idle in transaction, " + "client 127.0.0.1:")
                        .contains("last query started");
                assertThat(report.xminHorizon())
                        .hasValueSatisfying(horizon ->
                                assertThat(horizon.culprit()).contains("pid " + pid + " (" + application + ")"));
                holder.commit();
            }
            DatabaseHealthReport after = probe.read(Instant.now());
            assertThat(after.oldestTransaction().map(OpenTransaction::pid))
                    .as("the transaction ended")
                    .isNotEqualTo(Optional.of(pid));
        }
    }

    @Test
    @DisplayName("a prepared transaction and a replication slot are named as holders of the horizon")
    void preparedTransactionsAndReplicationSlotsAreNamed() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                .setServerConfig("wal_level", "logical")
                .setServerConfig("max_prepared_transactions", "2")
                .setServerConfig("max_replication_slots", "2")
                .setServerConfig("max_wal_senders", "2")
                .start()) {
            DataSource dataSource = postgres.getPostgresDatabase();
            PostgresHealthProbe probe =
                    PostgresHealthProbe.create(dataSource, "outbox_events", StoreLayout.IN_PLACE, Optional.empty());
            try (Connection admin = dataSource.getConnection();
                    Statement statement = admin.createStatement()) {
                statement.execute("CREATE TABLE horizon_probe (n int)");
                statement.execute("SELECT pg_create_logical_replication_slot('outbox_health_slot', 'pgoutput')");
                statement.execute("BEGIN; INSERT INTO horizon_probe VALUES (1); PREPARE TRANSACTION 'outbox-gid-1'");

                DatabaseHealthReport report = probe.read(Instant.now());

                assertThat(report.preparedTransactions()).singleElement().satisfies(prepared -> {
                    assertThat(prepared.gid()).isEqualTo("outbox-gid-1");
                    assertThat(prepared.owner()).isEqualTo("postgres");
                    assertThat(prepared.describe()).contains("prepared transaction 'outbox-gid-1' (owner postgres)");
                });
                assertThat(report.replicationSlots()).singleElement().satisfies(slot -> {
                    assertThat(slot.slotName()).isEqualTo("outbox_health_slot");
                    assertThat(slot.slotType()).isEqualTo("logical");
                    assertThat(slot.active()).isFalse();
                    assertThat(slot.catalogXminAge()).isPresent();
                    assertThat(slot.describe())
                            .contains("'outbox_health_slot' (logical, inactive")
                            .contains("catalog_xmin");
                });
                // a logical slot holds back the catalogs only: the outbox table's horizon is the prepared one
                assertThat(report.replicationSlots()).noneMatch(ReplicationSlotHold::holdsTables);
                assertThat(report.xminHorizon())
                        .hasValueSatisfying(horizon ->
                                assertThat(horizon.culprit()).contains("prepared transaction 'outbox-gid-1'"));

                statement.execute("ROLLBACK PREPARED 'outbox-gid-1'");
                statement.execute("SELECT pg_drop_replication_slot('outbox_health_slot')");
                DatabaseHealthReport after = probe.read(Instant.now());
                assertThat(after.preparedTransactions()).isEmpty();
                assertThat(after.replicationSlots()).isEmpty();
            }
        }
    }
}
