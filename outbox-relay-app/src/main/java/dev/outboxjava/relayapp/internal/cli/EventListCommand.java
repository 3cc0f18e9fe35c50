package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A {@code list} subcommand: reads one page of events and how many there are in all from the outbox
 * table, and prints them with {@link EventList} in the same columns for every listing but one, the
 * time that matters to it (when the event was created, when it is next tried).
 */
abstract class EventListCommand implements Callable<Integer> {

    @Mixin
    ConfigOptions config;

    @Mixin
    OutboxOption outbox;

    @Mixin
    EventList list;

    @Spec
    CommandSpec spec;

    private final String what;
    private final List<EventList.Field> fields;

    /**
     * @param what names the events in the output ("dead letters")
     * @param timeHeader the header of the time column
     * @param time the time column's value
     */
    EventListCommand(String what, String timeHeader, Function<OutboxEvent, Instant> time) {
        this.what = what;
        this.fields = List.of(
                new EventList.Field("ID", event -> event.id().toString()),
                new EventList.Field("TYPE", event -> EventList.cell(event.type(), EventList.MAX_CELL)),
                new EventList.Field("KEY", event -> EventList.cell(event.key().orElse("-"), EventList.MAX_CELL)),
                new EventList.Field("DESTINATION", event -> EventList.cell(event.destination(), EventList.MAX_CELL)),
                new EventList.Field("ATTEMPTS", event -> event.attempts() + "/" + event.maxAttempts()),
                new EventList.Field(timeHeader, event -> EventList.time(time.apply(event))),
                new EventList.Field(
                        "LAST ERROR", event -> EventList.cell(event.lastError().orElse("-"), EventList.MAX_ERROR)));
    }

    /** The events from {@code offset}, at most {@code limit} of them. */
    abstract List<OutboxEvent> page(PostgresOutboxStore store, int offset, int limit);

    /** How many events the listing has in all. */
    abstract long total(PostgresOutboxStore store);

    @Override
    public final Integer call() {
        list.requireValid(spec.commandLine());
        DatabaseConfig database = outbox.choose(config.load(RelayAppConfig.Requirement.DATABASE), spec.commandLine())
                .database();
        try (StoreSession session = StoreSession.open(database)) {
            List<OutboxEvent> page = page(session.store(), list.offset, list.limit);
            long total = total(session.store());
            list.print(spec.commandLine().getOut(), what, page, total, fields);
        }
        return ExitCodes.OK;
    }
}
