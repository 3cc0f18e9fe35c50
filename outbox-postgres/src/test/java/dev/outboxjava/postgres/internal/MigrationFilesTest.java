package dev.outboxjava.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.postgres.internal.appendlog.LogPartitions;
import dev.outboxjava.postgres.internal.appendlog.ParkingGenerations;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class MigrationFilesTest {

    @Test
    @DisplayName("each location's list names exactly the files it holds, versioned ones in version order, "
            + "so ensureSchema() runs every migration Flyway runs")
    void listsMatchTheDirectories() throws Exception {
        assertThat(MigrationFiles.OUTBOX).isEqualTo(filesIn(MigrationFiles.OUTBOX_LOCATION));
        assertThat(MigrationFiles.OUTBOX_PER_KEY).isEqualTo(filesIn(MigrationFiles.OUTBOX_PER_KEY_LOCATION));
        assertThat(MigrationFiles.INBOX).isEqualTo(filesIn(MigrationFiles.INBOX_LOCATION));
        assertThat(MigrationFiles.OUTBOX_OPERATOR).isEqualTo(filesIn(MigrationFiles.OUTBOX_OPERATOR_LOCATION));
        assertThat(MigrationFiles.OUTBOX_APPEND_LOG).isEqualTo(filesIn(MigrationFiles.OUTBOX_APPEND_LOG_LOCATION));
        assertThat(MigrationFiles.OUTBOX_APPEND_LOG)
                .allMatch(file -> file.matches(".*/V\\d+(_\\d+)*__[a-z0-9_]+\\.sql"));
        assertThat(MigrationFiles.OUTBOX_OPERATOR).allMatch(file -> file.matches(".*/V\\d+(_\\d+)*__[a-z0-9_]+\\.sql"));
        assertThat(MigrationFiles.OUTBOX).allMatch(file -> file.matches(".*/V\\d+(_\\d+)*__[a-z0-9_]+\\.sql"));
        assertThat(MigrationFiles.INBOX).allMatch(file -> file.matches(".*/V\\d+(_\\d+)*__[a-z0-9_]+\\.sql"));
        assertThat(MigrationFiles.OUTBOX_PER_KEY).allMatch(file -> file.matches(".*/R__[a-z0-9_]+\\.sql"));
    }

    /**
     * Flyway refuses to migrate when an applied versioned file changed (checksum mismatch), and
     * {@code ensureSchema()} users would silently diverge from Flyway users: a change to a table is a new
     * versioned file. A file is pinned here once it is published; the repeatable per-key file may change.
     */
    private static final Map<String, String> PUBLISHED = Map.of(
            "db/outbox/postgresql/outbox/V1__create_outbox_table.sql",
            "3f1975c900cad646a6b0c306aa5d29003a1e3cb1f7700a8add0f2e36a06d3aad",
            "db/outbox/postgresql/inbox/V1__create_inbox_table.sql",
            "02989b64341d38b00eaea2279375a27610261c0c1190cda12bcd23fd6d621cb6");

    @Test
    @DisplayName("a published versioned migration never changes: add a new versioned file instead")
    void publishedMigrationsAreUnchanged() {
        PUBLISHED.forEach((resource, sha256) -> assertThat(sha256(DdlScripts.resource(resource)))
                .as(resource + " changed; put the change in a new versioned file of its location")
                .isEqualTo(sha256));
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @DisplayName("no location lies inside another, so pointing Flyway at one never picks up another's files")
    void locationsAreSeparate() throws Exception {
        Path root = directory(MigrationFiles.ROOT);
        try (Stream<Path> entries = Files.list(root)) {
            assertThat(entries.filter(Files::isRegularFile).toList())
                    .as("files directly under the root")
                    .isEmpty();
        }
        for (String location : List.of(
                MigrationFiles.OUTBOX_LOCATION,
                MigrationFiles.OUTBOX_PER_KEY_LOCATION,
                MigrationFiles.OUTBOX_APPEND_LOG_LOCATION,
                MigrationFiles.INBOX_LOCATION,
                MigrationFiles.OUTBOX_OPERATOR_LOCATION)) {
            try (Stream<Path> entries = Files.list(directory(location))) {
                assertThat(entries.filter(Files::isDirectory).toList())
                        .as(location)
                        .isEmpty();
            }
        }
    }

    @Test
    @DisplayName("a reference to the table becomes the quoted qualified name, a derived name the bare table name")
    void render() {
        String sql = MigrationFiles.render(
                MigrationFiles.OUTBOX_PER_KEY,
                MigrationFiles.OUTBOX_TABLE_PLACEHOLDER,
                Identifiers.tableName("table", "billing.events"));
        assertThat(sql)
                .contains("CREATE INDEX IF NOT EXISTS \"events_key_guard_idx\" ON \"billing\".\"events\" ")
                .doesNotContain("${");
    }

    @Test
    @DisplayName("the audit table lies in the outbox table's schema, its constraint named after it")
    void renderAudit() {
        String sql = MigrationFiles.render(
                MigrationFiles.OUTBOX_OPERATOR,
                MigrationFiles.OUTBOX_TABLE_PLACEHOLDER,
                Identifiers.tableName("table", "billing.events"));
        assertThat(sql)
                .contains("CREATE TABLE IF NOT EXISTS \"billing\".\"events_audit\" (")
                .contains("CONSTRAINT \"events_audit_pkey\" PRIMARY KEY (id)")
                .doesNotContain("${");
    }

    @Test
    @DisplayName("the attempts table lies in the outbox table's schema, its constraint and index named after it")
    void renderAttempts() {
        String sql = MigrationFiles.render(
                MigrationFiles.OUTBOX_OPERATOR,
                MigrationFiles.OUTBOX_TABLE_PLACEHOLDER,
                Identifiers.tableName("table", "billing.events"));
        assertThat(sql)
                .contains("CREATE TABLE IF NOT EXISTS \"billing\".\"events_attempts\" (")
                .contains("CONSTRAINT \"events_attempts_pkey\" PRIMARY KEY (id)")
                .contains("CREATE INDEX IF NOT EXISTS \"events_attempts_idx\" ON \"billing\".\"events_attempts\"");
    }

    @Test
    @DisplayName("in the append-only layout, side tables and views lie in the table's schema; index, key and "
            + "check names and the new name of a rename are bare")
    void renderAppendLog() {
        String sql = MigrationFiles.render(
                MigrationFiles.OUTBOX_APPEND_LOG,
                MigrationFiles.OUTBOX_TABLE_PLACEHOLDER,
                Identifiers.tableName("table", "billing.events"));
        assertThat(sql)
                .contains("CREATE TABLE IF NOT EXISTS \"billing\".\"events_state\" (")
                .contains("CONSTRAINT \"events_state_pkey\" PRIMARY KEY (id, gen)")
                .contains("CONSTRAINT \"events_state_status_check\" CHECK")
                .contains("CREATE INDEX IF NOT EXISTS \"events_state_pending_idx\" ON \"billing\".\"events_state\" ")
                .contains("ALTER TABLE \"billing\".\"events_state\" RENAME TO \"events_state_unpartitioned\";")
                .contains("CREATE OR REPLACE VIEW \"billing\".\"events_in_flight\" AS")
                .contains("to_regclass('\"billing\".\"events_p1\"')")
                .doesNotContain("${");
    }

    @Test
    @DisplayName("the append-only file's first range and kept state partition are the ones the code works with")
    void appendLogLiteralsMatchTheCode() {
        String sql = DdlScripts.resource(MigrationFiles.OUTBOX_APPEND_LOG.get(0));
        assertThat(sql)
                .contains("FOR VALUES FROM (MINVALUE) TO (" + LogPartitions.FIRST_UPPER + ");")
                .contains("gen             smallint    NOT NULL DEFAULT " + ParkingGenerations.KEPT + ",")
                .contains("PARTITION OF \"${outbox_table}_state\" FOR VALUES IN (" + ParkingGenerations.KEPT + ");");
    }

    private static List<String> filesIn(String location) throws IOException, URISyntaxException {
        try (Stream<Path> files = Files.list(directory(location))) {
            return files.map(file -> location + "/" + file.getFileName())
                    .sorted((a, b) -> compareVersions(version(a), version(b)))
                    .toList();
        }
    }

    private static Path directory(String resource) throws URISyntaxException {
        URL url = MigrationFilesTest.class.getClassLoader().getResource(resource);
        assertThat(url).as(resource).isNotNull();
        return Path.of(url.toURI());
    }

    private static int[] version(String file) {
        String name = file.substring(file.lastIndexOf('/') + 1);
        if (!name.startsWith("V")) {
            return new int[0];
        }
        String[] parts = name.substring(1, name.indexOf("__")).split("[._]");
        int[] version = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            version[i] = Integer.parseInt(parts[i]);
        }
        return version;
    }

    private static int compareVersions(int[] a, int[] b) {
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            int x = i < a.length ? a[i] : 0;
            int y = i < b.length ? b[i] : 0;
            if (x != y) {
                return Integer.compare(x, y);
            }
        }
        return 0;
    }
}
