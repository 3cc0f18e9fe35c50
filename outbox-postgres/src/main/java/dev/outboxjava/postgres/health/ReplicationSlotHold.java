package dev.outboxjava.postgres.health;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A replication slot that holds a horizon back ({@code pg_replication_slots}). A slot's {@code xmin}
 * (a physical slot of a standby with {@code hot_standby_feedback}) holds back vacuum of every table,
 * the outbox's too; its {@code catalog_xmin} (a logical slot) holds back the system catalogs only.
 * A slot keeps holding while nothing consumes it: an abandoned slot holds the horizon for ever.
 *
 * @param slotName      the slot's name (for {@code pg_drop_replication_slot})
 * @param slotType      {@code physical} or {@code logical}
 * @param active        whether a consumer is connected to it now
 * @param activePid     the pid of the connected consumer's walsender; empty when none
 * @param xminAge       transaction ids since the slot's {@code xmin}; empty when it holds none
 * @param catalogXminAge transaction ids since the slot's {@code catalog_xmin}; empty when it holds none
 */
public record ReplicationSlotHold(
        String slotName,
        String slotType,
        boolean active,
        Optional<Integer> activePid,
        OptionalLong xminAge,
        OptionalLong catalogXminAge) {

    public ReplicationSlotHold {
        Objects.requireNonNull(slotName, "slotName");
        Objects.requireNonNull(slotType, "slotType");
        Objects.requireNonNull(activePid, "activePid");
        Objects.requireNonNull(xminAge, "xminAge");
        Objects.requireNonNull(catalogXminAge, "catalogXminAge");
    }

    /** Whether it holds back vacuum of ordinary tables such as the outbox (its {@code xmin} is set). */
    public boolean holdsTables() {
        return xminAge.isPresent();
    }

    /** One line for logs and health details. */
    public String describe() {
        StringBuilder line = new StringBuilder("replication slot '")
                .append(slotName)
                .append("' (")
                .append(slotType)
                .append(", ")
                .append(
                        active
                                ? "active"
                                        + activePid
                                                .map(pid -> ", walsender pid " + pid)
                                                .orElse("")
                                : "inactive: nothing consumes it")
                .append(')');
        xminAge.ifPresent(
                age -> line.append(", xmin ").append(age).append(" transaction ids old (vacuum of every table waits)"));
        catalogXminAge.ifPresent(age -> line.append(", catalog_xmin ")
                .append(age)
                .append(" transaction ids old (vacuum of the system catalogs waits)"));
        return line.toString();
    }
}
