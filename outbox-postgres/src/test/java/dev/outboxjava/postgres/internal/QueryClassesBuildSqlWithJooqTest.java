package dev.outboxjava.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The store's query classes build their statements with jOOQ's DSL: no string literal in their code
 * (comments aside) holds SQL, so no statement is put together from text by hand.
 */
class QueryClassesBuildSqlWithJooqTest {

    private static final Path SOURCES = Path.of("src/main/java/dev/outboxjava/postgres");

    /** Code's string literals and text blocks; comments are removed first. */
    private static final Pattern STRING =
            Pattern.compile("\"\"\"(.*?)\"\"\"|\"((?:[^\"\\\\\\n]|\\\\.)*)\"", Pattern.DOTALL);

    private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);
    /** What only SQL text has: a statement's keyword, or a clause's. */
    private static final Pattern SQL = Pattern.compile(
            "(?i)\\b(select\\s|insert\\s+into|update\\s+\\S+\\s+set|delete\\s+from|\\swhere\\s|returning\\s|for\\s+update|::)");

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "internal/EventInsert.java",
                "internal/inplace/LeaseQuery.java",
                "internal/inplace/OrderedLeaseQuery.java",
                "internal/MarkQueries.java",
                "internal/BacklogQuery.java",
                "internal/HousekeepingQueries.java",
                "internal/inplace/InPlaceOperatorReads.java",
                "internal/OperatorRepairs.java",
                "internal/OperatorAudit.java",
                "internal/inplace/InPlaceRepairs.java",
                "internal/AsyncCommit.java",
                "internal/PreparedSql.java",
                "internal/OutboxTable.java",
                "internal/EventRows.java",
                "internal/inplace/PerKeyIndexes.java",
                "internal/appendlog/LogLease.java",
                "internal/appendlog/LogReadSql.java",
                "internal/appendlog/LogMarks.java",
                "internal/appendlog/LogHousekeeping.java",
                "internal/appendlog/LogOperatorReads.java",
                "internal/appendlog/LogRepairs.java",
                "internal/appendlog/LogSql.java",
                "internal/appendlog/LogPartitions.java",
                "health/PostgresHealthProbe.java",
                "PostgresOutboxStore.java",
                "OutboxWriter.java",
                "OutboxNotifier.java",
                "inbox/PostgresInbox.java"
            })
    @DisplayName("a query class has no SQL in its string literals")
    void noSqlText(String source) throws IOException {
        assertThat(sqlLiterals(SOURCES.resolve(source))).isEmpty();
    }

    @Test
    @DisplayName("the check finds SQL text where a class has it (the append-only layout's DDL, written as text)")
    void findsSqlText() throws IOException {
        assertThat(sqlLiterals(SOURCES.resolve("internal/LogLayoutDdl.java"))).isNotEmpty();
    }

    private static List<String> sqlLiterals(Path source) throws IOException {
        String code = COMMENT.matcher(Files.readString(source)).replaceAll(" ");
        List<String> found = new ArrayList<>();
        Matcher literal = STRING.matcher(code);
        while (literal.find()) {
            String text = literal.group(1) != null ? literal.group(1) : literal.group(2);
            if (SQL.matcher(" " + text + " ").find()) {
                found.add(text);
            }
        }
        return found;
    }
}
