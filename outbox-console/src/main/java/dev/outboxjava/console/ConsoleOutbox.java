package dev.outboxjava.console;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.port.OperatorStore;
import dev.outboxjava.core.port.OutboxStore;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * One outbox of a console of many ({@link OutboxConsole#forOutboxes}): the label it is listed and
 * addressed by, e.g. {@code tenant_a.outbox}, and its store.
 *
 * <p>The label is shown escaped and is part of the outbox's page addresses
 * ({@code /console/outboxes/tenant_a.outbox/dead-letters}), so it should be stable: a table's qualified
 * name is a good one.
 */
public final class ConsoleOutbox {

    private final String label;
    private final OutboxStore store;
    private final OperatorStore operator;
    private final Supplier<List<HealthSignal>> healthSignals;

    private ConsoleOutbox(
            String label, OutboxStore store, OperatorStore operator, Supplier<List<HealthSignal>> healthSignals) {
        this.label = Objects.requireNonNull(label, "label");
        if (label.isBlank()) {
            throw new InvalidConfigurationException("label", "an outbox's label must not be blank");
        }
        this.store = Objects.requireNonNull(store, "store");
        this.operator = Objects.requireNonNull(operator, "operator");
        this.healthSignals = Objects.requireNonNull(healthSignals, "healthSignals");
    }

    /**
     * An outbox over a store that offers both the relay's and the operator's ports, such as
     * {@code PostgresOutboxStore}, without health signals of its own.
     *
     * @throws InvalidConfigurationException when the label is blank
     */
    public static <S extends OutboxStore & OperatorStore> ConsoleOutbox of(String label, S store) {
        return new ConsoleOutbox(label, store, store, List::of);
    }

    /**
     * This outbox with the health signals of its own table (its lag, its dead tuples), read at each view of
     * its overview; the database's signals, shared by every outbox, belong to
     * {@link OutboxConsole.Builder#healthSignals}, which the list of outboxes shows once.
     */
    public ConsoleOutbox withHealthSignals(Supplier<List<HealthSignal>> value) {
        return new ConsoleOutbox(label, store, operator, value);
    }

    /** The label it is listed and addressed by. */
    public String label() {
        return label;
    }

    /** Its store, as the relay sees it (counts, events). */
    public OutboxStore store() {
        return store;
    }

    /** Its store's operator API (dead letters, repairs, audit). */
    public OperatorStore operator() {
        return operator;
    }

    /** The health signals of its own table. */
    public Supplier<List<HealthSignal>> healthSignals() {
        return healthSignals;
    }

    @Override
    public String toString() {
        return "ConsoleOutbox[" + label + "]";
    }
}
