package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.PostgresOutboxStore;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code retries list}: the events waiting for another attempt, and why their last one failed. */
@Command(
        name = "retries",
        mixinStandardHelpOptions = true,
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
    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = {
                "Lists events waiting for a retry, next attempt soonest first: id, type, key, destination, "
                        + "attempts so far, when the next attempt is due, and the last error shortened (in full with "
                        + "--format json or 'dead-letters show ID'); then how many wait in all.",
                "An event leaves this list when a retry succeeds, or becomes a dead letter when its attempts "
                        + "run out."
            })
    static final class ListCommand extends EventListCommand {

        ListCommand() {
            super("events waiting for a retry", "NEXT ATTEMPT", OutboxEvent::nextAttemptAt);
        }

        @Override
        List<OutboxEvent> page(PostgresOutboxStore store, int offset, int limit) {
            return store.listRetrying(offset, limit);
        }

        @Override
        long total(PostgresOutboxStore store) {
            return store.countRetrying();
        }
    }
}
