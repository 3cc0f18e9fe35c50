package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.OutboxSettings;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code retries list}: the events waiting for another attempt, and why their last one failed. */
@Command(name = "retries", mixinStandardHelpOptions = true,
        description = "Lists events waiting for a retry (pending after a failed attempt).",
        subcommands = RetriesCommand.ListCommand.class)
public final class RetriesCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    /** {@code retries list}. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {"Lists events waiting for a retry, next attempt soonest first: id, type, key, destination, "
                    + "attempts so far, when the next attempt is due, and the last error shortened (in full with "
                    + "--format json or 'dead-letters show ID'); then how many wait in all.",
                    "An event leaves this list when a retry succeeds, or becomes a dead letter when its attempts "
                            + "run out."})
    static final class ListCommand implements Callable<Integer> {

        static final List<EventList.Field> FIELDS = List.of(
                new EventList.Field("ID", event -> event.id().toString()),
                new EventList.Field("TYPE", event -> EventList.cell(event.type(), EventList.MAX_CELL)),
                new EventList.Field("KEY", event -> EventList.cell(event.key().orElse("-"), EventList.MAX_CELL)),
                new EventList.Field("DESTINATION", event -> EventList.cell(event.destination(), EventList.MAX_CELL)),
                new EventList.Field("ATTEMPTS", event -> event.attempts() + "/" + event.maxAttempts()),
                new EventList.Field("NEXT ATTEMPT", event -> EventList.time(event.nextAttemptAt())),
                new EventList.Field("LAST ERROR", event -> EventList.cell(event.lastError().orElse("-"),
                        EventList.MAX_ERROR)));

        @Mixin
        ConfigOptions config;

        @Mixin
        EventList list;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            list.requireValid(spec.commandLine());
            DatabaseConfig database = config.load(OutboxSettings.Requirement.DATABASE).requireDatabase();
            try (StoreSession session = StoreSession.open(database)) {
                List<OutboxEvent> page = session.store().listRetrying(list.offset, list.limit);
                long total = session.store().countRetrying();
                list.print(spec.commandLine().getOut(), "events waiting for a retry", page, total, FIELDS);
            }
            return ExitCodes.OK;
        }
    }
}
