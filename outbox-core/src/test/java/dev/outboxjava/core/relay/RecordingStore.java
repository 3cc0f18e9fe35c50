package dev.outboxjava.core.relay;

import dev.outboxjava.core.port.ForwardingOutboxStore;
import dev.outboxjava.core.port.OutboxStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Passes every call to a real store and remembers the limits the sweeper and the cleaner asked for. */
final class RecordingStore extends ForwardingOutboxStore {

    final List<Integer> sweepLimits = new ArrayList<>();
    final List<Integer> cleanUpLimits = new ArrayList<>();
    final List<Instant> sweepCutoffs = new ArrayList<>();
    final List<Instant> cleanUpCutoffs = new ArrayList<>();

    RecordingStore(OutboxStore delegate) {
        super(delegate);
    }

    @Override
    public int sweepExpiredLeases(Instant leasedBefore, int limit) {
        sweepLimits.add(limit);
        sweepCutoffs.add(leasedBefore);
        return super.sweepExpiredLeases(leasedBefore, limit);
    }

    @Override
    public int cleanUp(Instant sentBefore, int limit) {
        cleanUpLimits.add(limit);
        cleanUpCutoffs.add(sentBefore);
        return super.cleanUp(sentBefore, limit);
    }
}
