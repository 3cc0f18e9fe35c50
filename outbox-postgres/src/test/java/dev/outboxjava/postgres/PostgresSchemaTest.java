package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.postgres.internal.Identifiers;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PostgresSchemaTest {

    @Test
    @DisplayName("the DDL is the shipped migration files with the table's name in place of the placeholder, "
            + "the per-key file only when ordering per key")
    void ddlIsTheShippedFiles() {
        String table = shipped("db/outbox/postgresql/outbox/V1__create_outbox_table.sql", "outbox_events");
        String cloudEvents =
                shipped("db/outbox/postgresql/outbox/V2__add_cloudevents_subject_dataschema.sql", "outbox_events");
        String perKey = shipped("db/outbox/postgresql/outbox-per-key/R__outbox_per_key_indexes.sql", "outbox_events");

        String unordered = PostgresSchema.ddl(
                PostgresOutboxConfig.builder().layout(StoreLayout.IN_PLACE).build());
        String perKeyDdl = PostgresSchema.ddl(PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                .build());

        assertThat(unordered)
                .contains(table)
                .contains(cloudEvents)
                .doesNotContain(perKey)
                .doesNotContain("_key_guard_idx")
                .doesNotContain("${");
        assertThat(perKeyDdl).contains(table).contains(perKey).doesNotContain("${");
        assertThat(perKeyDdl.indexOf(perKey))
                .as("per-key indexes after the table")
                .isGreaterThan(perKeyDdl.indexOf(table));
        assertThat(unordered.indexOf(cloudEvents)).as("V2 after V1").isGreaterThan(unordered.indexOf(table));
        assertThat(PostgresSchema.migrationResources(PostgresOutboxConfig.builder()
                        .layout(StoreLayout.IN_PLACE)
                        .build()))
                .containsExactly(
                        "db/outbox/postgresql/outbox/V1__create_outbox_table.sql",
                        "db/outbox/postgresql/outbox/V2__add_cloudevents_subject_dataschema.sql");
    }

    private static String shipped(String resource, String table) {
        try (InputStream in = PostgresSchemaTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${outbox_table}", table);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    @DisplayName("a schema-qualified table is quoted everywhere, and the trigger notifies the configured channel")
    void qualifiedNames() {
        String ddl = PostgresSchema.ddl(PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .tableName("billing.events")
                .notifyChannel("billing_wake")
                .wakeUpMode(WakeUpMode.TRIGGER_NOTIFY)
                .build());
        assertThat(ddl)
                .contains("CREATE TABLE IF NOT EXISTS \"billing\".\"events\" (")
                .contains("ON \"billing\".\"events\" (seq, next_attempt_at) WHERE status = 'pending'")
                .contains("CREATE OR REPLACE FUNCTION \"billing\".\"events_notify\"()")
                .contains("pg_notify('billing_wake', '')")
                .doesNotContain("outbox_events");
    }

    @Test
    @DisplayName("without the trigger wake-up (the default, or none) the DDL drops the trigger instead of creating it")
    void noTrigger() {
        for (WakeUpMode mode : List.of(WakeUpMode.NOTIFY_AFTER_COMMIT, WakeUpMode.NONE)) {
            String ddl = PostgresSchema.ddl(PostgresOutboxConfig.builder()
                    .layout(StoreLayout.IN_PLACE)
                    .wakeUpMode(mode)
                    .build());
            assertThat(ddl)
                    .as(mode.name())
                    .doesNotContain("CREATE OR REPLACE TRIGGER")
                    .doesNotContain("pg_notify")
                    .contains("DROP TRIGGER IF EXISTS \"outbox_events_notify\" ON \"outbox_events\";");
        }
    }

    @Test
    @DisplayName("with the longest table name and every option, no derived name passes PostgreSQL's 63-character limit")
    void derivedNamesFit() {
        String longest = "t".repeat(Identifiers.MAX_TABLE_LENGTH);
        String ddl = PostgresSchema.ddl(PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .tableName(longest)
                .wakeUpMode(WakeUpMode.TRIGGER_NOTIFY)
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                .build());
        Matcher quoted = Pattern.compile("\"([^\"]*)\"").matcher(ddl);
        List<String> names = new ArrayList<>();
        while (quoted.find()) {
            names.add(quoted.group(1));
        }
        assertThat(names)
                .as("quoted identifiers")
                .contains(longest + "_key_guard_idx", longest + "_key_held_idx", longest + "_attempts_check")
                .allSatisfy(name -> assertThat(name).hasSizeLessThanOrEqualTo(Identifiers.MAX_IDENTIFIER_LENGTH));
    }
}
