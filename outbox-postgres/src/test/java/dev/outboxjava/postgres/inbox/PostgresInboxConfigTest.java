package dev.outboxjava.postgres.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.InvalidConfigurationException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("PostgreSQL inbox configuration and DDL")
class PostgresInboxConfigTest {

    @Test
    @DisplayName("defaults to table outbox_inbox")
    void defaults() {
        assertThat(PostgresInboxConfig.ofDefaults().tableName()).isEqualTo("outbox_inbox");
        assertThat(PostgresInboxConfig.ofDefaults().schemaName()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "inbox; drop table orders",
                "Inbox",
                "\"inbox\"",
                "a.b.c",
                "",
                "inbox_with_a_name_that_is_far_too_long_for_postgres_x"
            })
    @DisplayName("refuses table names that are not plain identifiers, naming the setting")
    void refusesUnsafeNames(String name) {
        assertThatThrownBy(() -> PostgresInboxConfig.builder().tableName(name).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining(PostgresInboxConfig.TABLE_NAME_SETTING);
    }

    @Test
    @DisplayName("the DDL is the shipped migration with the table's name in place of the placeholder")
    void ddlIsTheShippedMigration() throws IOException {
        String shipped;
        try (InputStream in = getClass()
                .getClassLoader()
                .getResourceAsStream("db/outbox/postgresql/inbox/V1__create_inbox_table.sql")) {
            assertThat(in).isNotNull();
            shipped = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(PostgresInboxSchema.ddl(PostgresInboxConfig.ofDefaults()))
                .contains(shipped.replace("${inbox_table}", "outbox_inbox"))
                .doesNotContain("${");
    }

    @Test
    @DisplayName("the DDL quotes a schema-qualified name and derives constraint and index names from the table")
    void qualifiedDdl() {
        String ddl = PostgresInboxSchema.ddl(
                PostgresInboxConfig.builder().tableName("shipping.inbox").build());

        assertThat(ddl)
                .contains("CREATE TABLE IF NOT EXISTS \"shipping\".\"inbox\"")
                .contains("CONSTRAINT \"inbox_pkey\" PRIMARY KEY (consumer_name, message_id)")
                .contains(
                        "CREATE INDEX IF NOT EXISTS \"inbox_processed_idx\" ON \"shipping\".\"inbox\" (processed_at)");
    }
}
