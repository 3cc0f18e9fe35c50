package dev.outboxjava.worker;

import dev.outboxjava.postgres.OutboxChannelsListener;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.worker.internal.FairScheduler;
import dev.outboxjava.worker.internal.OutageTracker;
import dev.outboxjava.worker.internal.OutboxLane;
import java.time.Clock;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One database of a {@link MultiOutboxWorker}: its data source (the one pool of all its outboxes), the
 * outboxes relayed there now, and its one LISTEN connection, on the channel of each of them.
 */
final class OutboxDatabase {

    private static final Logger log = LoggerFactory.getLogger(MultiOutboxWorker.class);

    /** The lane of one outbox and its place in the schedule. */
    record Scheduled(OutboxLane lane, FairScheduler.Slot<OutboxLane> slot, String channel, boolean listens) {}

    private final String name;
    private final DataSource dataSource;
    private final OutboxTables tables;
    private final Map<OutboxId, Scheduled> outboxes = new ConcurrentHashMap<>();
    private final Map<String, Set<Scheduled>> byChannel = new ConcurrentHashMap<>();
    private final OutageTracker discoveryOutage;
    private OutboxChannelsListener listener;

    OutboxDatabase(String name, DataSource dataSource, OutboxTables tables) {
        this.name = Objects.requireNonNull(name, "name");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.tables = Objects.requireNonNull(tables, "tables");
        this.discoveryOutage = new OutageTracker("outbox discovery of database " + name, false, Clock.systemUTC());
    }

    String name() {
        return name;
    }

    DataSource dataSource() {
        return dataSource;
    }

    OutboxTables tables() {
        return tables;
    }

    /** The outboxes relayed now. */
    Map<OutboxId, Scheduled> outboxes() {
        return outboxes;
    }

    /**
     * Reads the set of outboxes again: schedules those that are new, retires those that are gone. A
     * database that cannot be asked keeps its outboxes (logged once until it answers again).
     *
     * @param lanes  makes the lane of a new outbox
     * @param letGo  told about an outbox that is gone once no step is under way on it
     */
    synchronized void refresh(
            FairScheduler<OutboxLane> scheduler,
            Function<OutboxTables.Entry, OutboxLane> lanes,
            Consumer<OutboxLane> letGo) {
        List<OutboxTables.Entry> entries;
        try {
            entries = tables.resolve(dataSource);
            discoveryOutage.succeeded();
        } catch (RuntimeException e) {
            discoveryOutage.failed(e.getMessage(), e);
            return;
        }
        Map<OutboxId, OutboxTables.Entry> wanted = new LinkedHashMap<>();
        for (OutboxTables.Entry entry : entries) {
            wanted.put(new OutboxId(name, entry.schema(), entry.table()), entry);
        }
        for (Map.Entry<OutboxId, OutboxTables.Entry> entry : wanted.entrySet()) {
            if (!outboxes.containsKey(entry.getKey())) {
                OutboxLane lane = lanes.apply(entry.getValue());
                FairScheduler.Slot<OutboxLane> slot =
                        scheduler.add(lane, entry.getValue().weight());
                String channel = entry.getValue().config().notifyChannel();
                boolean listens = entry.getValue().config().wakeUpMode().listens();
                Scheduled scheduled = new Scheduled(lane, slot, channel, listens);
                outboxes.put(entry.getKey(), scheduled);
                if (listens) {
                    byChannel
                            .computeIfAbsent(channel, any -> ConcurrentHashMap.newKeySet())
                            .add(scheduled);
                    if (listener != null) {
                        listener.listen(channel);
                    }
                }
                log.info("relaying outbox {}", entry.getKey());
            }
        }
        for (OutboxId gone : Set.copyOf(outboxes.keySet())) {
            if (!wanted.containsKey(gone)) {
                Scheduled scheduled = outboxes.remove(gone);
                if (scheduled.listens()) {
                    Set<Scheduled> sharing = byChannel.getOrDefault(scheduled.channel(), new HashSet<>());
                    sharing.remove(scheduled);
                    if (sharing.isEmpty()) {
                        byChannel.remove(scheduled.channel());
                        if (listener != null) {
                            listener.unlisten(scheduled.channel());
                        }
                    }
                }
                log.info("outbox {} is gone; letting it go", gone);
                if (scheduler.retire(scheduled.slot())) {
                    letGo.accept(scheduled.lane());
                }
            }
        }
    }

    /** Starts the LISTEN connection when an outbox of this database may be woken by a notification. */
    synchronized void startListening(FairScheduler<OutboxLane> scheduler) {
        if (!tables.listens() || listener != null) {
            return;
        }
        listener = OutboxChannelsListener.start(dataSource, name, channel -> {
            for (Scheduled scheduled : byChannel.getOrDefault(channel, Set.of())) {
                scheduler.wake(scheduled.slot());
            }
        });
        byChannel.keySet().forEach(listener::listen);
    }

    /** Stops the LISTEN connection. */
    synchronized void stopListening() {
        if (listener != null) {
            listener.close();
            listener = null;
        }
    }

    /** Forgets every outbox (the worker stopped; a start reads the set again). */
    synchronized void clear() {
        outboxes.clear();
        byChannel.clear();
    }

    /** A store for an outbox of this database, on its one data source. */
    PostgresOutboxStore store(OutboxTables.Entry entry) {
        return PostgresOutboxStore.create(dataSource, entry.config());
    }
}
