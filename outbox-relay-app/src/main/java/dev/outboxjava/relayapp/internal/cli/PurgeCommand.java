package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.worker.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code purge}: deletes terminal events older than a given age. */
@Command(
        name = "purge",
        mixinStandardHelpOptions = true,
        description = "Deletes sent events or dead letters created more than --older-than ago; recorded in the audit "
                + "trail (the table <outbox table>_audit, the console's Audit page) as done by --by or the OS user.")
public final class PurgeCommand implements Callable<Integer> {

    /** Which terminal state to purge. */
    enum Purgeable {
        sent(EventStatus.SENT),
        failed(EventStatus.FAILED);

        final EventStatus status;

        Purgeable(EventStatus status) {
            this.status = status;
        }
    }

    @Mixin
    ConfigOptions config;

    @Mixin
    OutboxOption outbox;

    @Spec
    CommandSpec spec;

    @Option(
            names = "--status",
            required = true,
            paramLabel = "sent|failed",
            description = "Which events: sent, or failed (dead letters).")
    Purgeable status;

    @Option(
            names = "--older-than",
            required = true,
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "Only events created longer ago than this, e.g. 7d, 12h, 30m.")
    Duration olderThan;

    @Option(
            names = "--by",
            paramLabel = "NAME",
            description = "Who purges, for the audit trail (default: the OS user).")
    String by;

    @Option(names = "--dry-run", description = "Only count what would be deleted; delete nothing.")
    boolean dryRun;

    @Override
    public Integer call() {
        if (olderThan.isNegative()) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--older-than must not be negative");
        }
        DatabaseConfig database = outbox.choose(config.load(RelayAppConfig.Requirement.DATABASE), spec.commandLine())
                .database();
        try (StoreSession session = StoreSession.open(database)) {
            Instant before = Clock.systemUTC().instant().minus(olderThan);
            if (dryRun) {
                long wouldGo = session.store().countPurgeable(status.status, before);
                spec.commandLine()
                        .getOut()
                        .printf(
                                "would purge %d %s event(s) created before %s from %s "
                                        + "(dry run: nothing deleted)%n",
                                wouldGo, status.name(), before, database.table());
                spec.commandLine().getOut().flush();
                return ExitCodes.OK;
            }
            Instant now = Clock.systemUTC().instant();
            long purged = status == Purgeable.sent
                    ? session.store().purgeSent(before, Actor.of(by), now)
                    : session.store()
                            .purgeDeadLetters(
                                    DeadLetterFilter.any().withCreated(Optional.empty(), Optional.of(before)),
                                    Actor.of(by),
                                    now);
            spec.commandLine()
                    .getOut()
                    .printf("purged %d %s event(s) created before %s%n", purged, status.name(), before);
            spec.commandLine().getOut().flush();
        }
        return ExitCodes.OK;
    }

    /** Reads {@code 7d}, {@code 30s}, {@code PT1H}. */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return Durations.parse(value);
        }
    }
}
