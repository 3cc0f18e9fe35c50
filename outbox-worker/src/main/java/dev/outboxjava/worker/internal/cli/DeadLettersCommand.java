package dev.outboxjava.worker.internal.cli;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterSelector;
import dev.outboxjava.worker.DatabaseConfig;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code dead-letters list|show|requeue}: look at events that were given up on, and send them again. */
@Command(name = "dead-letters", mixinStandardHelpOptions = true,
        description = "Lists, shows and requeues dead letters (events in state 'failed').",
        subcommands = {DeadLettersCommand.ListCommand.class, DeadLettersCommand.ShowCommand.class, DeadLettersCommand.RequeueCommand.class})
public final class DeadLettersCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    /** {@code dead-letters list}. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Lists dead letters, oldest first: id, type, key, attempts, created at, last error.")
    static final class ListCommand implements Callable<Integer> {

        @Mixin
        ConfigOptions config;

        @Spec
        CommandSpec spec;

        @Option(names = "--limit", defaultValue = "50", description = "At most this many (default ${DEFAULT-VALUE}).")
        int limit;

        @Option(names = "--offset", defaultValue = "0", description = "Skip this many first (default ${DEFAULT-VALUE}).")
        int offset;

        @Override
        public Integer call() {
            if (limit < 1 || offset < 0) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "--limit must be at least 1 and --offset not negative");
            }
            DatabaseConfig database = config.load().requireDatabase();
            try (StoreSession session = StoreSession.open(database)) {
                List<OutboxEvent> page = session.store().listDeadLetters(offset, limit);
                PrintWriter out = spec.commandLine().getOut();
                for (OutboxEvent event : page) {
                    out.printf("%s  %s  key=%s  attempts=%d/%d  created=%s  error=%s%n", event.id(), event.type(),
                            event.key().orElse("-"), event.attempts(), event.maxAttempts(), event.createdAt(),
                            oneLine(event.lastError().orElse("-")));
                }
                out.printf("%d dead letter(s) shown (offset %d)%n", page.size(), offset);
                out.flush();
            }
            return ExitCodes.OK;
        }
    }

    /** {@code dead-letters show <id>}. */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Shows one event (any state) with its headers, last error and payload.")
    static final class ShowCommand implements Callable<Integer> {

        @Mixin
        ConfigOptions config;

        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "ID", description = "The event id (a UUID).")
        UUID id;

        @Override
        public Integer call() {
            DatabaseConfig database = config.load().requireDatabase();
            try (StoreSession session = StoreSession.open(database)) {
                Optional<OutboxEvent> found = session.store().find(id);
                if (found.isEmpty()) {
                    spec.commandLine().getErr().println("no event with id " + id + " in table " + database.table());
                    return ExitCodes.FAILED;
                }
                OutboxEvent event = found.get();
                PrintWriter out = spec.commandLine().getOut();
                out.printf("%-16s %s%n", "id", event.id());
                out.printf("%-16s %s%n", "status", event.status().databaseValue());
                out.printf("%-16s %s%n", "type", event.type());
                out.printf("%-16s %s%n", "source", event.source());
                out.printf("%-16s %s%n", "key", event.key().orElse("-"));
                out.printf("%-16s %s%n", "destination", event.destination());
                out.printf("%-16s %s%n", "routing_key", event.routingKey().isEmpty() ? "-" : event.routingKey());
                out.printf("%-16s %s%n", "content_type", event.contentType());
                out.printf("%-16s %d/%d%n", "attempts", event.attempts(), event.maxAttempts());
                out.printf("%-16s %s%n", "created_at", event.createdAt());
                out.printf("%-16s %s%n", "next_attempt_at", event.nextAttemptAt());
                out.printf("%-16s %s%n", "last_error", event.lastError().orElse("-"));
                event.headers().forEach((name, value) -> out.printf("%-16s %s=%s%n", "header", name, value));
                out.printf("%-16s %d bytes%n", "payload_size", event.payloadSize());
                out.printf("%-16s %s%n", "payload", printable(event.payload()));
                out.flush();
            }
            return ExitCodes.OK;
        }
    }

    /** {@code dead-letters requeue}. */
    @Command(name = "requeue", mixinStandardHelpOptions = true,
            description = "Moves dead letters back to pending, due now, attempts reset; the relay sends them again.")
    static final class RequeueCommand implements Callable<Integer> {

        @Mixin
        ConfigOptions config;

        @Spec
        CommandSpec spec;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Selection selection;

        static final class Selection {
            @Option(names = "--id", paramLabel = "ID", description = "These dead letters (repeatable).")
            List<UUID> ids;

            @Option(names = "--type", paramLabel = "TYPE", description = "Every dead letter of this event type.")
            String type;

            @Option(names = "--all", description = "Every dead letter.")
            boolean all;
        }

        @Override
        public Integer call() {
            DeadLetterSelector selector;
            String what;
            if (selection.ids != null && !selection.ids.isEmpty()) {
                Set<UUID> ids = new LinkedHashSet<>(selection.ids);
                selector = DeadLetterSelector.byIds(ids);
                what = ids.size() + " given id(s)";
            } else if (selection.type != null) {
                selector = DeadLetterSelector.byType(selection.type);
                what = "type " + selection.type;
            } else {
                selector = DeadLetterSelector.all();
                what = "all";
            }
            DatabaseConfig database = config.load().requireDatabase();
            try (StoreSession session = StoreSession.open(database)) {
                int requeued = session.store().requeueDeadLetters(selector, Clock.systemUTC().instant());
                spec.commandLine().getOut().printf("requeued %d dead letter(s) (%s)%n", requeued, what);
                spec.commandLine().getOut().flush();
            }
            return ExitCodes.OK;
        }
    }

    static String oneLine(String text) {
        String flat = text.replace('\n', ' ').replace('\r', ' ');
        return flat.length() > 200 ? flat.substring(0, 200) + "..." : flat;
    }

    static String printable(byte[] payload) {
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(payload)).toString();
            return text;
        } catch (CharacterCodingException e) {
            return "base64:" + Base64.getEncoder().encodeToString(payload);
        }
    }
}
