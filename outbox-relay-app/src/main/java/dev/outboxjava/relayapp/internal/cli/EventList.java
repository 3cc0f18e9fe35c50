package dev.outboxjava.relayapp.internal.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.outboxjava.core.OutboxEvent;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Option;

/**
 * A page of events as an operator reads it: a table with a header, columns as wide as their widest
 * value, the error shortened and a total; or, with {@code --format json}, one JSON document with
 * every field in full for scripts. The {@code --limit}, {@code --offset} and {@code --format}
 * options of the listing commands.
 */
final class EventList {

    /** Output formats. */
    enum Format {
        table,
        json
    }

    /** Widest a table cell gets; longer values end with "...". */
    static final int MAX_CELL = 40;
    /** Widest the last error gets in the table; {@code --format json} or {@code show} give it in full. */
    static final int MAX_ERROR = 60;

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Option(
            names = "--limit",
            defaultValue = "50",
            paramLabel = "N",
            description = "At most this many events (default ${DEFAULT-VALUE}).")
    int limit;

    @Option(
            names = "--offset",
            defaultValue = "0",
            paramLabel = "N",
            description = "Skip this many first (default ${DEFAULT-VALUE}).")
    int offset;

    @Option(
            names = "--format",
            defaultValue = "table",
            paramLabel = "table|json",
            description = "table (default): for people; json: every field in full, for scripts.")
    Format format;

    /** One column of the table: its header and how to read it from an event. */
    record Field(String header, Function<OutboxEvent, String> value) {}

    /** An event as the JSON output carries it (times as ISO-8601 strings). */
    record Row(
            String id,
            String status,
            String type,
            String key,
            String destination,
            String routingKey,
            int attempts,
            int maxAttempts,
            String createdAt,
            String nextAttemptAt,
            String lastError) {

        static Row of(OutboxEvent event) {
            return new Row(
                    event.id().toString(),
                    event.status().databaseValue(),
                    event.type(),
                    event.key().orElse(null),
                    event.destination(),
                    event.routingKey(),
                    event.attempts(),
                    event.maxAttempts(),
                    event.createdAt().toString(),
                    event.nextAttemptAt().toString(),
                    event.lastError().orElse(null));
        }
    }

    /** The JSON document: the page and where it lies in the whole. */
    record Page(String what, long total, int offset, int limit, List<Row> events) {}

    void requireValid(picocli.CommandLine commandLine) {
        if (limit < 1 || offset < 0) {
            throw new picocli.CommandLine.ParameterException(
                    commandLine, "--limit must be at least 1 and --offset not negative");
        }
    }

    /** Prints the page as the chosen format; {@code what} names the events ("dead letters"). */
    void print(PrintWriter out, String what, List<OutboxEvent> page, long total, List<Field> fields) {
        if (format == Format.json) {
            try {
                out.println(JSON.writeValueAsString(new Page(
                        what, total, offset, limit, page.stream().map(Row::of).toList())));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("cannot write the " + what + " as JSON", e);
            }
        } else if (page.isEmpty()) {
            out.printf("no %s%s (%d in all)%n", what, offset > 0 ? " from offset " + offset : "", total);
        } else {
            out.print(table(page, fields));
            out.printf(
                    "%d-%d of %d %s%s%n",
                    offset + 1,
                    offset + page.size(),
                    total,
                    what,
                    offset + page.size() < total ? " (more with --offset " + (offset + page.size()) + ")" : "");
        }
        out.flush();
    }

    private static String table(List<OutboxEvent> page, List<Field> fields) {
        List<String[]> rows = new ArrayList<>();
        rows.add(fields.stream().map(Field::header).toArray(String[]::new));
        for (OutboxEvent event : page) {
            rows.add(fields.stream().map(field -> field.value().apply(event)).toArray(String[]::new));
        }
        Column[] columns = new Column[fields.size()];
        for (int c = 0; c < fields.size(); c++) {
            int widest = 0;
            for (String[] row : rows) {
                widest = Math.max(widest, row[c].length());
            }
            // two spaces between columns; the last one needs none
            columns[c] = new Column(widest + (c == fields.size() - 1 ? 0 : 2), 0, Column.Overflow.TRUNCATE);
        }
        TextTable table = TextTable.forColumns(Help.defaultColorScheme(Help.Ansi.OFF), columns);
        rows.forEach(table::addRowValues);
        return table.toString()
                .lines()
                .map(String::stripTrailing)
                .reduce(
                        new StringBuilder(),
                        (text, line) -> text.append(line).append(System.lineSeparator()),
                        StringBuilder::append)
                .toString();
    }

    /** A cell: one line, at most {@code max} characters, its control characters as escapes ({@link Terminal}). */
    static String cell(String text, int max) {
        String flat = Terminal.text(text.replaceAll("\\s+", " ").strip());
        return flat.length() > max ? flat.substring(0, max - 3) + "..." : flat;
    }

    /** A time to the second, for the table. */
    static String time(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
