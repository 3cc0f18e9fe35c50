package dev.outboxjava.examples.inbox;

import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.port.ForwardingOutboxStore;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.OutboxStore;
import java.time.Instant;
import java.util.Collection;
import java.util.UUID;

/**
 * The real store, except that while {@link #kill() armed} the relay dies right after the broker
 * acknowledged its batch: the mark never reaches the database. The events stay in flight under a
 * lease nobody will mark, until the sweeper reclaims them and a relay publishes them again — with
 * the same ids.
 */
final class RelayKilledBeforeMark extends ForwardingOutboxStore {

    private volatile boolean killNextMark;

    RelayKilledBeforeMark(OutboxStore delegate) {
        super(delegate);
    }

    /** The next {@link #markPublished} "kills" the relay instead of marking. */
    void kill() {
        killNextMark = true;
    }

    @Override
    public MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        if (killNextMark) {
            killNextMark = false;
            throw new OutboxStoreException("relay killed between the broker's acknowledgement and the mark of "
                    + eventIds.size() + " event(s)");
        }
        return super.markPublished(leaseId, eventIds, now);
    }
}
