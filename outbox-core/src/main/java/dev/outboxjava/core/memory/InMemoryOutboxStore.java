package dev.outboxjava.core.memory;

import dev.outboxjava.core.DeadLetterReason;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.ActiveLease;
import dev.outboxjava.core.port.Attempt;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.DestinationCounts;
import dev.outboxjava.core.port.ErrorCause;
import dev.outboxjava.core.port.EventEdit;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.core.port.FailureGroup;
import dev.outboxjava.core.port.HeldKey;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.OperatorStore;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.RetryMark;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * An {@link OutboxStore} in memory, with the same semantics as the PostgreSQL store (it passes the
 * same contract suite): for unit tests of code around the outbox, and for the core's own tests.
 * Not durable, obviously. Thread-safe (one lock; speed is not its point).
 */
public final class InMemoryOutboxStore implements OutboxStore, OperatorStore {

    private final TreeMap<Long, OutboxEvent> bySequence = new TreeMap<>();
    private final Map<UUID, Long> sequenceById = new java.util.HashMap<>();
    private final CompletionMode completionMode;
    private final Ordering ordering;
    private long nextSequence = 1;
    private final List<AuditEntry> audit = new ArrayList<>();
    /** Each event's failed attempts, oldest first; they go with the event. */
    private final Map<UUID, List<Attempt>> attempts = new java.util.HashMap<>();

    private volatile boolean available = true;

    public InMemoryOutboxStore() {
        this(CompletionMode.KEEP_SENT);
    }

    public InMemoryOutboxStore(CompletionMode completionMode) {
        this(completionMode, Ordering.none());
    }

    /**
     * A store with the given completion mode and ordering. With {@link Ordering.Mode#PER_KEY} a lease
     * takes, per key, only the contiguous run of due events that no earlier event of the key blocks
     * (in flight, not yet due, or — when the ordering holds keys — dead-lettered).
     */
    public InMemoryOutboxStore(CompletionMode completionMode, Ordering ordering) {
        this.completionMode = java.util.Objects.requireNonNull(completionMode, "completionMode");
        this.ordering = java.util.Objects.requireNonNull(ordering, "ordering");
    }

    /**
     * Appends events as one atomic step (all or none), assigning increasing sequences.
     *
     * @throws InvalidConfigurationException if an id is already present (ids are unique)
     * @throws dev.outboxjava.core.InvalidEventException when the collection or an element is null, or an
     *         event is not pending or breaks a content rule (see {@link dev.outboxjava.core.AppendableEvents})
     */
    public synchronized List<OutboxEvent> append(Collection<OutboxEvent> events) {
        dev.outboxjava.core.AppendableEvents.require(events);
        checkAvailable();
        Set<UUID> seen = new HashSet<>();
        for (OutboxEvent event : events) {
            if (sequenceById.containsKey(event.id()) || !seen.add(event.id())) {
                throw new dev.outboxjava.core.OutboxException(
                        "event id " + event.id() + " is already in the outbox; " + "every event needs a new id");
            }
        }
        List<OutboxEvent> stored = new ArrayList<>(events.size());
        for (OutboxEvent event : events) {
            OutboxEvent withSequence = event.withSequence(nextSequence++);
            bySequence.put(withSequence.sequence(), withSequence);
            sequenceById.put(withSequence.id(), withSequence.sequence());
            stored.add(withSequence);
        }
        return stored;
    }

    /** Appends events; see {@link #append(Collection)}. */
    public List<OutboxEvent> append(OutboxEvent... events) {
        return append(List.of(events));
    }

    /** Simulates an outage: every call throws {@link dev.outboxjava.core.OutboxStoreException} until restored. */
    public void setAvailable(boolean value) {
        this.available = value;
    }

    /** A snapshot of every event, in sequence order. */
    public synchronized List<OutboxEvent> all() {
        return List.copyOf(bySequence.values());
    }

    @Override
    public synchronized List<OutboxEvent> lease(UUID leaseId, int limit, Instant now) {
        checkAvailable();
        List<OutboxEvent> leased = new ArrayList<>();
        Set<String> blockedKeys = new HashSet<>();
        for (OutboxEvent event : bySequence.values()) {
            if (leased.size() >= limit) {
                break;
            }
            boolean due = event.status() == EventStatus.PENDING
                    && !event.nextAttemptAt().isAfter(now);
            if (ordering.isPerKey() && event.key().isPresent()) {
                String key = event.key().get();
                if (blockedKeys.contains(key)) {
                    continue;
                }
                if (!due) {
                    if (blocksLaterEventsOfItsKey(event)) {
                        blockedKeys.add(key);
                    }
                    continue;
                }
            }
            if (due) {
                leased.add(event.withDelivery(
                        event.status().checkTransition(event.id(), EventStatus.IN_FLIGHT),
                        event.attempts(),
                        event.lastError(),
                        event.nextAttemptAt(),
                        Optional.of(now),
                        Optional.of(leaseId),
                        Optional.empty()));
            }
        }
        leased.forEach(this::put);
        return leased;
    }

    private boolean blocksLaterEventsOfItsKey(OutboxEvent event) {
        return switch (event.status()) {
            case PENDING, IN_FLIGHT -> true;
            case FAILED -> ordering.deadLetterHoldsKey();
            case SENT -> false;
        };
    }

    @Override
    public synchronized MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        return markEach(leaseId, eventIds, Function.identity(), event -> {
            if (completionMode == CompletionMode.DELETE_ON_PUBLISH) {
                event.status().checkTransition(event.id(), EventStatus.SENT);
                remove(event.id());
                return;
            }
            put(event.withDelivery(
                    event.status().checkTransition(event.id(), EventStatus.SENT),
                    event.attempts(),
                    event.lastError(),
                    event.nextAttemptAt(),
                    event.leasedAt(),
                    event.leaseId(),
                    Optional.of(now)));
        });
    }

    @Override
    public synchronized MarkResult markRetry(UUID leaseId, Collection<RetryMark> marks, Instant now) {
        Map<UUID, RetryMark> byId = index(marks, RetryMark::eventId);
        return markEach(leaseId, byId.keySet(), Function.identity(), event -> {
            RetryMark mark = byId.get(event.id());
            failed(event, EventStatus.PENDING, mark.error(), mark.nextAttemptAt(), Attempt.Outcome.RETRY, now);
        });
    }

    @Override
    public synchronized MarkResult markDeadLettered(UUID leaseId, Collection<DeadLetterMark> marks, Instant now) {
        Map<UUID, DeadLetterMark> byId = index(marks, DeadLetterMark::eventId);
        return markEach(leaseId, byId.keySet(), Function.identity(), event -> {
            DeadLetterMark mark = byId.get(event.id());
            failed(event, EventStatus.FAILED, mark.error(), event.nextAttemptAt(), Attempt.Outcome.DEAD_LETTER, now);
            mark.reason().ifPresent(reason -> stopped(event.id(), reason));
        });
    }

    /** Notes on the event's last recorded attempt which rule stopped the attempts. */
    private void stopped(UUID eventId, DeadLetterReason reason) {
        List<Attempt> recorded = attempts.get(eventId);
        Attempt last = recorded.get(recorded.size() - 1);
        recorded.set(
                recorded.size() - 1,
                new Attempt(
                        last.eventId(),
                        last.number(),
                        last.at(),
                        last.outcome(),
                        last.error(),
                        last.leaseId(),
                        Optional.of(reason.describe())));
    }

    /** A failed attempt: one more attempt counted, the error kept and recorded, the lease let go. */
    private void failed(
            OutboxEvent event,
            EventStatus next,
            String error,
            Instant nextAttemptAt,
            Attempt.Outcome outcome,
            Instant now) {
        put(event.withDelivery(
                event.status().checkTransition(event.id(), next),
                event.attempts() + 1,
                Optional.of(error),
                nextAttemptAt,
                Optional.empty(),
                Optional.empty(),
                Optional.empty()));
        recordAttempt(event, outcome, error, now);
    }

    @Override
    public synchronized MarkResult release(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        return markEach(
                leaseId,
                eventIds,
                Function.identity(),
                event -> put(event.withDelivery(
                        event.status().checkTransition(event.id(), EventStatus.PENDING),
                        event.attempts(),
                        event.lastError(),
                        event.nextAttemptAt(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty())));
    }

    @Override
    public synchronized int sweepExpiredLeases(Instant leasedBefore, int limit) {
        checkAvailable();
        List<OutboxEvent> expired = select(
                event -> event.status() == EventStatus.IN_FLIGHT
                        && event.leasedAt().orElseThrow().isBefore(leasedBefore),
                limit);
        expired.forEach(event -> put(event.withDelivery(
                EventStatus.PENDING,
                event.attempts(),
                event.lastError(),
                event.nextAttemptAt(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty())));
        return expired.size();
    }

    @Override
    public synchronized int cleanUp(Instant sentBefore, int limit) {
        checkAvailable();
        List<OutboxEvent> old = select(
                event -> event.status() == EventStatus.SENT
                        && event.sentAt().orElseThrow().isBefore(sentBefore),
                limit);
        old.forEach(event -> remove(event.id()));
        return old.size();
    }

    @Override
    public synchronized Map<EventStatus, Long> countByStatus() {
        checkAvailable();
        Map<EventStatus, Long> counts = new EnumMap<>(EventStatus.class);
        for (EventStatus status : EventStatus.values()) {
            counts.put(status, 0L);
        }
        bySequence.values().forEach(event -> counts.merge(event.status(), 1L, Long::sum));
        return counts;
    }

    @Override
    public synchronized Optional<Instant> oldestPendingCreatedAt() {
        checkAvailable();
        return bySequence.values().stream()
                .filter(event -> event.status() == EventStatus.PENDING)
                .map(OutboxEvent::createdAt)
                .min(Comparator.naturalOrder());
    }

    @Override
    public synchronized Backlog backlog(Instant now) {
        checkAvailable();
        long eligible = 0;
        long retrying = 0;
        long scheduled = 0;
        long held = 0;
        Instant oldestEligibleSince = null;
        // a key is held from its first event that waits or was dead-lettered on; an event in flight blocks
        // the lease but is progress, so the events behind it stay eligible
        Set<String> blockedKeys = new HashSet<>();
        for (OutboxEvent event : bySequence.values()) {
            boolean pending = event.status() == EventStatus.PENDING;
            boolean due = pending && !event.nextAttemptAt().isAfter(now);
            if (pending && !due) {
                if (event.attempts() > 0) {
                    retrying++;
                } else {
                    scheduled++;
                }
            }
            Optional<String> key = ordering.isPerKey() ? event.key() : Optional.empty();
            if (due && key.isPresent() && blockedKeys.contains(key.get())) {
                held++;
            } else if (due) {
                eligible++;
                Instant since =
                        event.nextAttemptAt().isAfter(event.createdAt()) ? event.nextAttemptAt() : event.createdAt();
                if (oldestEligibleSince == null || since.isBefore(oldestEligibleSince)) {
                    oldestEligibleSince = since;
                }
            } else if (key.isPresent() && event.status() != EventStatus.IN_FLIGHT && blocksLaterEventsOfItsKey(event)) {
                blockedKeys.add(key.get());
            }
        }
        return new Backlog(eligible, Optional.ofNullable(oldestEligibleSince), retrying, scheduled, held);
    }

    @Override
    public synchronized Optional<OutboxEvent> find(UUID eventId) {
        checkAvailable();
        return Optional.ofNullable(sequenceById.get(eventId)).map(bySequence::get);
    }

    @Override
    public synchronized List<OutboxEvent> listRetrying(int offset, int limit) {
        checkAvailable();
        return bySequence.values().stream()
                .filter(event -> event.status() == EventStatus.PENDING && event.attempts() > 0)
                .sorted(Comparator.comparing(OutboxEvent::nextAttemptAt)) // stable: sequence order on ties
                .skip(offset)
                .limit(limit)
                .toList();
    }

    private long purgeSentBefore(Instant createdBefore) {
        checkAvailable();
        List<OutboxEvent> purged = select(
                event -> event.status() == EventStatus.SENT && event.createdAt().isBefore(createdBefore),
                Integer.MAX_VALUE);
        purged.forEach(event -> remove(event.id()));
        return purged.size();
    }

    @Override
    public synchronized EventPage findDeadLetters(DeadLetterFilter filter, OptionalLong after, int limit) {
        checkAvailable();
        requirePositive(limit);
        long from = after.isPresent() ? after.getAsLong() + 1 : Long.MIN_VALUE;
        List<OutboxEvent> fetched = bySequence.tailMap(from, true).values().stream()
                .filter(event -> event.status() == EventStatus.FAILED && filter.matches(event))
                .limit(limit + 1L)
                .toList();
        return EventPage.of(fetched, limit);
    }

    @Override
    public synchronized long countDeadLetters(DeadLetterFilter filter, long upTo) {
        checkAvailable();
        return bySequence.values().stream()
                .filter(event -> event.status() == EventStatus.FAILED && filter.matches(event))
                .limit(upTo)
                .count();
    }

    @Override
    public synchronized long requeueDeadLetters(DeadLetterFilter filter, String actor, Instant now) {
        checkAvailable();
        List<OutboxEvent> requeued =
                select(event -> event.status() == EventStatus.FAILED && filter.matches(event), Integer.MAX_VALUE);
        requeued.forEach(event -> put(requeued(event, now)));
        audit(now, actor, AuditEntry.REQUEUE, filter.describe(), requeued);
        return requeued.size();
    }

    @Override
    public synchronized long purgeSent(Instant createdBefore, String actor, Instant now) {
        long purged = purgeSentBefore(createdBefore);
        audit(
                now,
                actor,
                AuditEntry.PURGE,
                "status=sent, created<" + createdBefore,
                purged,
                Optional.empty(),
                Optional.empty(),
                Map.of(),
                Optional.empty(),
                Map.of(),
                List.of());
        return purged;
    }

    @Override
    public synchronized long purgeDeadLetters(DeadLetterFilter filter, String actor, Instant now) {
        checkAvailable();
        List<OutboxEvent> purged =
                select(event -> event.status() == EventStatus.FAILED && filter.matches(event), Integer.MAX_VALUE);
        purged.forEach(event -> remove(event.id()));
        audit(now, actor, AuditEntry.PURGE, filter.describe(), purged);
        return purged.size();
    }

    @Override
    public synchronized Optional<OutboxEvent> editAndRequeue(UUID eventId, EventEdit edit, String actor, Instant now) {
        checkAvailable();
        edit.requireValid();
        Optional<OutboxEvent> found = find(eventId).filter(event -> event.status() == EventStatus.FAILED);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        OutboxEvent original = found.get();
        OutboxEvent edited = requeued(original.withContent(edit.payload(), edit.headers()), now);
        put(edited);
        audit(
                now,
                actor,
                AuditEntry.EDIT_REQUEUE,
                "id=" + eventId,
                1,
                Optional.of(eventId),
                Optional.of(original.payload()),
                original.headers(),
                Optional.of(edited.payload()),
                edited.headers(),
                List.of(eventId));
        return Optional.of(edited);
    }

    @Override
    public synchronized List<HeldKey> heldKeys(int limit) {
        checkAvailable();
        requirePositive(limit);
        if (!ordering.isPerKey()) {
            return List.of();
        }
        Map<String, OutboxEvent> holders = new java.util.LinkedHashMap<>();
        Map<String, Long> waiting = new java.util.HashMap<>();
        for (OutboxEvent event : bySequence.values()) {
            if (event.key().isEmpty()) {
                continue;
            }
            String key = event.key().get();
            if (holders.containsKey(key)) {
                if (event.status() == EventStatus.PENDING) {
                    waiting.merge(key, 1L, Long::sum);
                }
            } else if ((event.status() == EventStatus.PENDING && event.attempts() > 0)
                    || (event.status() == EventStatus.FAILED && ordering.deadLetterHoldsKey())) {
                holders.put(key, event);
            }
        }
        return holders.entrySet().stream()
                .filter(entry -> waiting.containsKey(entry.getKey()))
                .map(entry -> new HeldKey(entry.getKey(), entry.getValue(), waiting.get(entry.getKey())))
                .limit(limit)
                .toList();
    }

    @Override
    public synchronized List<DestinationCounts> countByDestination(int limit) {
        checkAvailable();
        requirePositive(limit);
        Map<String, long[]> counts = new TreeMap<>();
        for (OutboxEvent event : bySequence.values()) {
            int index = switch (event.status()) {
                case PENDING -> 0;
                case IN_FLIGHT -> 1;
                case FAILED -> 2;
                case SENT -> -1;
            };
            if (index >= 0) {
                counts.computeIfAbsent(event.destination(), d -> new long[3])[index]++;
            }
        }
        return counts.entrySet().stream()
                .map(entry -> new DestinationCounts(
                        entry.getKey(), entry.getValue()[0], entry.getValue()[1], entry.getValue()[2]))
                .sorted(Comparator.comparingLong((DestinationCounts c) -> -(c.pending() + c.inFlight() + c.failed())))
                .limit(limit)
                .toList();
    }

    @Override
    public synchronized List<ActiveLease> activeLeases(int limit) {
        checkAvailable();
        requirePositive(limit);
        Map<UUID, ActiveLease> leases = new java.util.LinkedHashMap<>();
        for (OutboxEvent event : bySequence.values()) {
            if (event.status() == EventStatus.IN_FLIGHT) {
                UUID leaseId = event.leaseId().orElseThrow();
                Instant at = event.leasedAt().orElseThrow();
                leases.merge(
                        leaseId,
                        new ActiveLease(leaseId, 1, at),
                        (a, b) -> new ActiveLease(
                                leaseId, a.events() + 1, a.leasedAt().isBefore(at) ? a.leasedAt() : at));
            }
        }
        return leases.values().stream()
                .sorted(Comparator.comparing(ActiveLease::leasedAt))
                .limit(limit)
                .toList();
    }

    /**
     * {@inheritDoc}
     *
     * <p>First and last seen are the times of the group's recorded failed attempts; an event without any
     * (not possible here, but in a store whose attempts table came later) counts with its creation time.
     */
    @Override
    public synchronized List<FailureGroup> failureGroups(int limit) {
        checkAvailable();
        requirePositive(limit);
        record GroupKey(FailureGroup.Kind kind, String cause, String destination, String type) {}
        Map<GroupKey, FailureGroup> groups = new java.util.HashMap<>();
        for (OutboxEvent event : bySequence.values()) {
            FailureGroup.Kind kind;
            if (event.status() == EventStatus.FAILED) {
                kind = FailureGroup.Kind.DEAD_LETTER;
            } else if (event.status() == EventStatus.PENDING && event.attempts() > 0) {
                kind = FailureGroup.Kind.RETRYING;
            } else {
                continue;
            }
            String error = event.lastError().orElse("");
            List<Instant> times = attempts.getOrDefault(event.id(), List.of()).stream()
                    .map(Attempt::at)
                    .toList();
            Instant first = times.stream().min(Comparator.naturalOrder()).orElse(event.createdAt());
            Instant last = times.stream().max(Comparator.naturalOrder()).orElse(event.createdAt());
            GroupKey key = new GroupKey(kind, ErrorCause.of(error), event.destination(), event.type());
            FailureGroup one =
                    new FailureGroup(kind, key.cause(), error, key.destination(), key.type(), 1, first, last);
            groups.merge(
                    key,
                    one,
                    (a, b) -> new FailureGroup(
                            kind,
                            a.cause(),
                            a.example().compareTo(b.example()) <= 0 ? a.example() : b.example(),
                            a.destination(),
                            a.type(),
                            a.count() + b.count(),
                            a.firstSeen().isBefore(b.firstSeen()) ? a.firstSeen() : b.firstSeen(),
                            a.lastSeen().isAfter(b.lastSeen()) ? a.lastSeen() : b.lastSeen()));
        }
        return groups.values().stream()
                .sorted(Comparator.comparing(FailureGroup::kind)
                        .thenComparing(
                                Comparator.comparingLong(FailureGroup::count).reversed())
                        .thenComparing(FailureGroup::cause)
                        .thenComparing(FailureGroup::destination)
                        .thenComparing(FailureGroup::type))
                .limit(limit)
                .toList();
    }

    @Override
    public synchronized List<String> deadLetterValues(DeadLetterFilter.Field field, String containing, int limit) {
        checkAvailable();
        java.util.Objects.requireNonNull(field, "field");
        java.util.Objects.requireNonNull(containing, "containing");
        requirePositive(limit);
        TreeSet<String> values = new TreeSet<>();
        for (OutboxEvent event : bySequence.values()) {
            if (event.status() != EventStatus.FAILED) {
                continue;
            }
            Optional<String> value = switch (field) {
                case DESTINATION -> Optional.of(event.destination());
                case TYPE -> Optional.of(event.type());
                case KEY -> event.key();
            };
            value.filter(v -> v.contains(containing)).ifPresent(values::add);
        }
        return values.stream().limit(limit).toList();
    }

    @Override
    public synchronized Map<UUID, Instant> deadLetteredAt(Set<UUID> eventIds) {
        checkAvailable();
        Map<UUID, Instant> at = new java.util.HashMap<>();
        for (UUID id : eventIds) {
            find(id).filter(event -> event.status() == EventStatus.FAILED)
                    .flatMap(event -> attempts.getOrDefault(id, List.of()).stream()
                            .filter(attempt -> attempt.outcome() == Attempt.Outcome.DEAD_LETTER)
                            .map(Attempt::at)
                            .max(Comparator.naturalOrder()))
                    .ifPresent(time -> at.put(id, time));
        }
        return at;
    }

    @Override
    public synchronized long retryNow(Set<UUID> eventIds, String actor, Instant now) {
        checkAvailable();
        java.util.Objects.requireNonNull(actor, "actor");
        java.util.Objects.requireNonNull(now, "now");
        if (eventIds.isEmpty()) {
            return 0; // no event named: nothing to do, nothing to audit
        }
        List<OutboxEvent> changed = retrying(eventIds);
        changed.forEach(event -> put(event.withDelivery(
                event.status(),
                event.attempts(),
                event.lastError(),
                now,
                Optional.empty(),
                Optional.empty(),
                Optional.empty())));
        audit(now, actor, AuditEntry.RETRY_NOW, idsSelection(eventIds), changed);
        return changed.size();
    }

    /**
     * {@inheritDoc}
     *
     * <p>The recorded attempt is the event's last one again ({@code attempt} = its attempts so far), under
     * no lease (the nil UUID).
     */
    @Override
    public synchronized long deadLetterNow(Set<UUID> eventIds, String actor, Instant now) {
        checkAvailable();
        java.util.Objects.requireNonNull(actor, "actor");
        java.util.Objects.requireNonNull(now, "now");
        if (eventIds.isEmpty()) {
            return 0; // no event named: nothing to do, nothing to audit
        }
        List<OutboxEvent> changed = retrying(eventIds);
        for (OutboxEvent event : changed) {
            put(event.withDelivery(
                    event.status().checkTransition(event.id(), EventStatus.FAILED),
                    event.attempts(),
                    event.lastError(),
                    event.nextAttemptAt(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty()));
            attempts.computeIfAbsent(event.id(), id -> new ArrayList<>())
                    .add(new Attempt(
                            event.id(),
                            event.attempts(),
                            now,
                            Attempt.Outcome.DEAD_LETTER,
                            event.lastError().orElse(""),
                            NO_LEASE,
                            Optional.of(DeadLetterReason.operator().describe())));
        }
        audit(now, actor, AuditEntry.DEAD_LETTER, idsSelection(eventIds), changed);
        return changed.size();
    }

    /** The lease id of an attempt recorded without a lease (an operator's dead-letter-now). */
    private static final UUID NO_LEASE = new UUID(0, 0);

    /** Of these events, those waiting for a retry, in sequence order. */
    private List<OutboxEvent> retrying(Set<UUID> eventIds) {
        java.util.Objects.requireNonNull(eventIds, "eventIds");
        return select(
                event -> eventIds.contains(event.id()) && event.status() == EventStatus.PENDING && event.attempts() > 0,
                Integer.MAX_VALUE);
    }

    private static String idsSelection(Set<UUID> eventIds) {
        return DeadLetterFilter.any().withIds(eventIds).describe();
    }

    @Override
    public synchronized List<AuditEntry> auditTrail(OptionalLong before, int limit) {
        checkAvailable();
        requirePositive(limit);
        List<AuditEntry> newestFirst = new ArrayList<>(audit);
        java.util.Collections.reverse(newestFirst);
        return newestFirst.stream()
                .filter(entry -> before.isEmpty() || entry.id() < before.getAsLong())
                .limit(limit)
                .toList();
    }

    @Override
    public synchronized List<Attempt> attempts(UUID eventId) {
        checkAvailable();
        return List.copyOf(attempts.getOrDefault(java.util.Objects.requireNonNull(eventId, "eventId"), List.of()));
    }

    /** Records the failed attempt of {@code event} (as leased, before the mark). */
    private void recordAttempt(OutboxEvent event, Attempt.Outcome outcome, String error, Instant now) {
        attempts.computeIfAbsent(event.id(), id -> new ArrayList<>())
                .add(new Attempt(
                        event.id(),
                        event.attempts() + 1,
                        now,
                        outcome,
                        error,
                        event.leaseId().orElseThrow()));
    }

    private static OutboxEvent requeued(OutboxEvent event, Instant now) {
        return event.withDelivery(
                event.status().checkTransition(event.id(), EventStatus.PENDING),
                0,
                event.lastError(),
                now,
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
    }

    private void audit(
            Instant at,
            String actor,
            String action,
            String selection,
            long affected,
            Optional<UUID> eventId,
            Optional<byte[]> originalPayload,
            Map<String, String> originalHeaders,
            Optional<byte[]> newPayload,
            Map<String, String> newHeaders,
            List<UUID> eventIds) {
        audit.add(new AuditEntry(
                audit.size() + 1L,
                at,
                java.util.Objects.requireNonNull(actor, "actor"),
                action,
                selection,
                affected,
                eventId,
                originalPayload,
                originalHeaders,
                newPayload,
                newHeaders,
                eventIds));
    }

    /** The audit entry of a repair of {@code changed} (in sequence order), with their first ids. */
    private void audit(Instant at, String actor, String action, String selection, List<OutboxEvent> changed) {
        audit(
                at,
                actor,
                action,
                selection,
                changed.size(),
                Optional.empty(),
                Optional.empty(),
                Map.of(),
                Optional.empty(),
                Map.of(),
                changed.stream()
                        .limit(AuditEntry.MAX_EVENT_IDS)
                        .map(OutboxEvent::id)
                        .toList());
    }

    private static void requirePositive(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
    }

    @Override
    public Ordering ordering() {
        return ordering;
    }

    @Override
    public HealthCheck checkHealth() {
        return available ? HealthCheck.up("in-memory store") : HealthCheck.down("in-memory store marked unavailable");
    }

    private <T> MarkResult markEach(
            UUID leaseId, Collection<T> ids, Function<T, UUID> toId, java.util.function.Consumer<OutboxEvent> change) {
        checkAvailable();
        Set<UUID> marked = new HashSet<>();
        Set<UUID> lost = new HashSet<>();
        for (T item : ids) {
            UUID id = toId.apply(item);
            OutboxEvent event = find(id).orElse(null);
            if (event == null
                    || event.status() != EventStatus.IN_FLIGHT
                    || !event.leaseId().equals(Optional.of(leaseId))) {
                lost.add(id);
            } else {
                change.accept(event);
                marked.add(id);
            }
        }
        return new MarkResult(marked, lost);
    }

    private static <T> Map<UUID, T> index(Collection<T> marks, Function<T, UUID> id) {
        Map<UUID, T> byId = new java.util.LinkedHashMap<>();
        marks.forEach(mark -> byId.put(id.apply(mark), mark));
        return byId;
    }

    private List<OutboxEvent> select(Predicate<OutboxEvent> filter, int limit) {
        return bySequence.values().stream().filter(filter).limit(limit).toList();
    }

    private void put(OutboxEvent event) {
        bySequence.put(event.sequence(), event);
    }

    private void remove(UUID id) {
        attempts.remove(id);
        Long sequence = sequenceById.remove(id);
        if (sequence != null) {
            bySequence.remove(sequence);
        }
    }

    private void checkAvailable() {
        if (!available) {
            throw new dev.outboxjava.core.OutboxStoreException("in-memory store is marked unavailable (test outage)");
        }
    }
}
