package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
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
@Command(
        name = "dead-letters",
        mixinStandardHelpOptions = true,
        description = "Lists, shows and requeues dead letters (events in state 'failed').",
        subcommands = {
            DeadLettersCommand.ListCommand.class,
            DeadLettersCommand.ShowCommand.class,
            DeadLettersCommand.RequeueCommand.class
        })
public final class DeadLettersCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    /** {@code dead-letters list}. */
    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "Lists dead letters, oldest first: id, type, key, destination, attempts, created at, the "
                    + "last error shortened (in full with --format json or 'show'); then how many there are in all.")
    static final class ListCommand extends EventListCommand {

        /** Most dead letters read per query while walking to the asked offset. */
        private static final int SKIP_PAGE = 1000;

        ListCommand() {
            super("dead letters", "CREATED", OutboxEvent::createdAt);
        }

        /** The operator's keyset pages, walked from the start to {@code offset}. */
        @Override
        List<OutboxEvent> page(PostgresOutboxStore store, int offset, int limit) {
            List<OutboxEvent> page = new ArrayList<>(limit);
            OptionalLong after = OptionalLong.empty();
            long skip = offset;
            while (page.size() < limit) {
                int want = (int) Math.min(SKIP_PAGE, skip + limit - page.size());
                EventPage found = store.findDeadLetters(DeadLetterFilter.any(), after, want);
                for (OutboxEvent event : found.events()) {
                    if (skip > 0) {
                        skip--;
                    } else if (page.size() < limit) {
                        page.add(event);
                    }
                }
                if (found.next().isEmpty()) {
                    break;
                }
                after = found.next();
            }
            return page;
        }

        @Override
        long total(PostgresOutboxStore store) {
            return store.countByStatus().getOrDefault(EventStatus.FAILED, 0L);
        }
    }

    /** {@code dead-letters show <id>}. */
    @Command(
            name = "show",
            mixinStandardHelpOptions = true,
            description = "Shows one event (any state) with its headers, last error and payload; control characters "
                    + "are written as escapes (ESC as \\u001B), as the web console shows them.")
    static final class ShowCommand implements Callable<Integer> {

        @Mixin
        ConfigOptions config;

        @Mixin
        OutboxOption outbox;

        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "ID", description = "The event id (a UUID).")
        UUID id;

        @Override
        public Integer call() {
            DatabaseConfig database = outbox.choose(
                            config.load(RelayAppConfig.Requirement.DATABASE), spec.commandLine())
                    .database();
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
                out.printf("%-16s %s%n", "type", Terminal.line(event.type()));
                out.printf("%-16s %s%n", "source", Terminal.line(event.source()));
                out.printf("%-16s %s%n", "key", Terminal.line(event.key().orElse("-")));
                out.printf("%-16s %s%n", "destination", Terminal.line(event.destination()));
                out.printf(
                        "%-16s %s%n",
                        "routing_key", Terminal.line(event.routingKey().isEmpty() ? "-" : event.routingKey()));
                out.printf("%-16s %s%n", "content_type", Terminal.line(event.contentType()));
                out.printf("%-16s %d/%d%n", "attempts", event.attempts(), event.maxAttempts());
                out.printf("%-16s %s%n", "created_at", event.createdAt());
                out.printf("%-16s %s%n", "next_attempt_at", event.nextAttemptAt());
                out.printf(
                        "%-16s %s%n",
                        "last_error", Terminal.text(event.lastError().orElse("-")));
                event.headers()
                        .forEach((name, value) ->
                                out.printf("%-16s %s=%s%n", "header", Terminal.line(name), Terminal.line(value)));
                out.printf("%-16s %d bytes%n", "payload_size", event.payloadSize());
                out.printf("%-16s %s%n", "payload", Terminal.text(printable(event.payload())));
                out.flush();
            }
            return ExitCodes.OK;
        }
    }

    /** {@code dead-letters requeue}. */
    @Command(
            name = "requeue",
            mixinStandardHelpOptions = true,
            description = {
                "Moves dead letters back to pending, due now, attempts reset; the relay sends them again. "
                        + "Recorded in the audit trail (the table <outbox table>_audit, the console's Audit page) as "
                        + "done by --by or the OS user.",
                "With --id, every id must be a dead letter: otherwise each wrong one is named, nothing is "
                        + "requeued, and the exit code is 1."
            })
    static final class RequeueCommand implements Callable<Integer> {

        @Mixin
        ConfigOptions config;

        @Mixin
        OutboxOption outbox;

        @Spec
        CommandSpec spec;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Selection selection;

        @Option(
                names = "--by",
                paramLabel = "NAME",
                description = "Who requeues, for the audit trail (default: the OS user).")
        String by;

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
            DeadLetterFilter filter;
            String what;
            Set<UUID> ids = Set.of();
            if (selection.ids != null && !selection.ids.isEmpty()) {
                ids = new LinkedHashSet<>(selection.ids);
                filter = DeadLetterFilter.ids(ids);
                what = ids.size() + " given id(s)";
            } else if (selection.type != null) {
                filter = DeadLetterFilter.any().withType(selection.type);
                what = "type " + selection.type;
            } else {
                filter = DeadLetterFilter.any();
                what = "all";
            }
            DatabaseConfig database = outbox.choose(
                            config.load(RelayAppConfig.Requirement.DATABASE), spec.commandLine())
                    .database();
            try (StoreSession session = StoreSession.open(database)) {
                List<String> notDead = new ArrayList<>();
                for (UUID id : ids) {
                    session.store()
                            .find(id)
                            .ifPresentOrElse(
                                    event -> {
                                        if (event.status() != EventStatus.FAILED) {
                                            notDead.add(id + " is "
                                                    + event.status().databaseValue() + ", not a dead letter");
                                        }
                                    },
                                    () -> notDead.add("no event with id " + id + " in table " + database.table()));
                }
                if (!notDead.isEmpty()) {
                    PrintWriter err = spec.commandLine().getErr();
                    notDead.forEach(err::println);
                    err.println("nothing requeued: every given id must be a dead letter");
                    err.flush();
                    return ExitCodes.FAILED;
                }
                long requeued = session.store()
                        .requeueDeadLetters(
                                filter, Actor.of(by), Clock.systemUTC().instant());
                spec.commandLine().getOut().printf("requeued %d dead letter(s) (%s)%n", requeued, what);
                spec.commandLine().getOut().flush();
            }
            return ExitCodes.OK;
        }
    }

    static String printable(byte[] payload) {
        try {
            String text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(payload))
                    .toString();
            return text;
        } catch (CharacterCodingException e) {
            return "base64:" + Base64.getEncoder().encodeToString(payload);
        }
    }
}
