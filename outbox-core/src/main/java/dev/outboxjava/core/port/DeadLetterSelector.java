package dev.outboxjava.core.port;

import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/** Which dead letters an operator action applies to. */
public sealed interface DeadLetterSelector {

    /** The dead letters with these ids (ids of events in other states are ignored). */
    static DeadLetterSelector byIds(Set<UUID> ids) {
        return new ByIds(ids);
    }

    /** Every dead letter of one event type. */
    static DeadLetterSelector byType(String type) {
        return new ByType(type);
    }

    /** Every dead letter. */
    static DeadLetterSelector all() {
        return new All();
    }

    record ByIds(Set<UUID> ids) implements DeadLetterSelector {
        public ByIds {
            ids = Set.copyOf(ids);
        }
    }

    record ByType(String type) implements DeadLetterSelector {
        public ByType {
            Objects.requireNonNull(type, "type");
        }
    }

    record All() implements DeadLetterSelector {}
}
