package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.ForwardingOutboxStore;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.worker.testsupport.SwitchablePublisher;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A relay loop step")
class RelayStepTest {

    private static final Duration POLL = Duration.ofSeconds(1);

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final InMemoryOutboxStore store = new InMemoryOutboxStore();
    private final LeaseTrackingStore leases = new LeaseTrackingStore(store);
    private final SwitchablePublisher publisher = new SwitchablePublisher();
    private final OutageTracker storeOutage = new OutageTracker("database", false, clock);
    private final OutageTracker brokerOutage = new OutageTracker("broker", false, clock);
    private final LogCapture log = new LogCapture("dev.outboxjava.worker.outage");

    @AfterEach
    void detach() {
        log.close();
    }

    private RelayStep step(Publisher using) {
        return relayStep(leases, using, MissedWakeUps.none(), BatchCompleter.ON_RELAY_THREAD);
    }

    /** A step over {@code tracked}, with this test's clock, settings and outage trackers. */
    private RelayStep relayStep(
            LeaseTrackingStore tracked, Publisher using, MissedWakeUps missed, BatchCompleter completer) {
        Relay relay = new Relay(
                tracked,
                using,
                new RelayConfig(10, Duration.ofSeconds(1)),
                RetryPolicy.builder().jitter(0).build(),
                clock,
                RelayListener.NONE);
        return new RelayStep(
                "relay-1",
                relay,
                using,
                tracked,
                POLL,
                new Backoff(Duration.ofMillis(500), Duration.ofSeconds(4)),
                storeOutage,
                brokerOutage,
                new OutageTracker("relay-1 loop", true, clock),
                missed,
                clock,
                completer);
    }

    private void append(int count) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(OutboxEvent.builder()
                    .type("order.placed")
                    .destination("orders")
                    .key("k" + (i % 3))
                    .payload(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                    .clock(clock)
                    .build());
        }
        store.append(events);
    }

    private long count(EventStatus status) {
        return store.countByStatus().get(status);
    }

    private RelayStep expectingWakeUps(MissedWakeUps missed) {
        return relayStep(leases, publisher, missed, BatchCompleter.ON_RELAY_THREAD);
    }

    /** An idle wait that ran out while {@code appended} events were committed, then the next step. */
    private void pollFinding(RelayStep relayStep, int appended) {
        clock.advance(Duration.ofMillis(500));
        append(appended);
        relayStep.waited(false);
        clock.advance(Duration.ofMillis(500));
        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.idle(POLL));
    }

    @Test
    void givenAnExpectedWakeUpThatNeverComes_whenPollsKeepFindingNewEvents_thenItIsLoggedOnceAtWarn() {
        MissedWakeUps missed = MissedWakeUps.expecting("a NOTIFY on channel outbox_events", POLL);
        RelayStep relayStep = expectingWakeUps(missed);
        try (LogCapture warnings = new LogCapture(MissedWakeUps.class.getName())) {
            assertThat(relayStep.step()).isEqualTo(LoopStep.Next.idle(POLL));
            for (int i = 1; i < MissedWakeUps.WARN_AFTER; i++) {
                pollFinding(relayStep, 2);
            }
            assertThat(missed.warned())
                    .as("fewer polls than the threshold prove nothing")
                    .isFalse();

            pollFinding(relayStep, 2);
            pollFinding(relayStep, 2);

            assertThat(warnings.atLeast(Level.WARN))
                    .singleElement()
                    .asString()
                    .contains("a NOTIFY on channel outbox_events")
                    .contains("no wake-up announced");
        }
    }

    @Test
    void givenWakeUpsThatArrive_whenAPollAlsoFindsAnEvent_thenNothingIsLogged() {
        MissedWakeUps missed = MissedWakeUps.expecting("a NOTIFY on channel outbox_events", POLL);
        RelayStep relayStep = expectingWakeUps(missed);
        relayStep.step();
        for (int i = 0; i < 2 * MissedWakeUps.WARN_AFTER; i++) {
            pollFinding(relayStep, 1);
            append(1);
            relayStep.waited(true);
            relayStep.step();
        }
        assertThat(missed.warned()).isFalse();
    }

    @Test
    void givenPollingOnly_whenPollsFindNewEvents_thenNothingIsLogged() {
        MissedWakeUps missed = MissedWakeUps.none();
        RelayStep relayStep = expectingWakeUps(missed);
        relayStep.step();
        for (int i = 0; i < 2 * MissedWakeUps.WARN_AFTER; i++) {
            pollFinding(relayStep, 1);
        }
        assertThat(missed.warned()).isFalse();
    }

    @Test
    void givenAFullBatch_whenStepping_thenItRunsAgainAtOnce_andWaitsForThePollIntervalWhenTheBatchIsShort() {
        append(15);
        RelayStep relayStep = step(publisher);

        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.MORE_WORK);
        assertThat(relayStep.step())
                .as("a short batch leased while the full one was in flight: once that is marked, it leases again")
                .isEqualTo(LoopStep.Next.MORE_WORK);
        assertThat(count(EventStatus.SENT)).isEqualTo(15);
        Duration wait = RelayStep.FIRST_DRAIN_WAIT;
        while (wait.compareTo(POLL) < 0) {
            assertThat(relayStep.step())
                    .as("after a drain, short leases wait briefly, twice as long each time")
                    .isEqualTo(LoopStep.Next.idle(wait));
            wait = wait.multipliedBy(2);
        }
        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.idle(POLL));
        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.idle(POLL));
    }

    @Test
    void givenADrainsShortLeaseWaitedBriefly_whenTheNextLeaseIsFull_thenTheShortWaitsStartOver() {
        append(10);
        RelayStep relayStep = step(publisher);
        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.MORE_WORK);
        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.MORE_WORK);
        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.idle(RelayStep.FIRST_DRAIN_WAIT));
        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.idle(RelayStep.FIRST_DRAIN_WAIT.multipliedBy(2)));

        append(10);
        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.MORE_WORK);
        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.MORE_WORK);
        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.idle(RelayStep.FIRST_DRAIN_WAIT));
        assertThat(count(EventStatus.SENT)).isEqualTo(20);
    }

    @Test
    void givenFullBatches_whenStepping_thenEachIsMarkedOnlyAfterTheNextIsLeased_andFinishMarksTheLast() {
        append(25);
        RelayStep relayStep = step(publisher);

        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.MORE_WORK);
        assertThat(count(EventStatus.IN_FLIGHT))
                .as("first batch still being published")
                .isEqualTo(10);
        assertThat(count(EventStatus.SENT)).isZero();

        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.MORE_WORK);
        assertThat(count(EventStatus.SENT))
                .as("first batch marked after the second was leased")
                .isEqualTo(10);
        assertThat(count(EventStatus.IN_FLIGHT)).isEqualTo(10);

        relayStep.finish();
        assertThat(count(EventStatus.SENT))
                .as("the loop stopping completes the batch in flight")
                .isEqualTo(20);
        assertThat(count(EventStatus.IN_FLIGHT)).isZero();
        assertThat(count(EventStatus.PENDING)).isEqualTo(5);
    }

    /** A broker whose acknowledgements come when the test says; it notes how many events were sent at each publish. */
    private final class AcknowledgingLater implements Publisher {
        final List<CompletableFuture<List<PublishOutcome>>> pending = new ArrayList<>();
        final List<List<OutboxEvent>> batches = new ArrayList<>();
        final List<Long> sentAtPublish = new ArrayList<>();

        @Override
        public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
            sentAtPublish.add(count(EventStatus.SENT));
            batches.add(batch);
            CompletableFuture<List<PublishOutcome>> acknowledgements = new CompletableFuture<>();
            pending.add(acknowledgements);
            return acknowledgements;
        }

        void acknowledge(int batch) {
            pending.get(batch)
                    .complete(batches.get(batch).stream()
                            .map(event -> PublishOutcome.published(event.id()))
                            .toList());
        }

        @Override
        public HealthCheck checkHealth() {
            return HealthCheck.up("test broker");
        }

        @Override
        public void close() {}
    }

    @Test
    void
            givenAShortBatchNotYetAcknowledged_whenStepping_thenTheLoopWaitsForTheAcknowledgementsOrAWakeUp_andThenMarksIt() {
        AcknowledgingLater broker = new AcknowledgingLater();
        RelayStep relayStep = step(broker);
        append(3);

        LoopStep.Next next = relayStep.step();

        assertThat(next.until())
                .as("the wait ends on the acknowledgements as well as on a wake-up")
                .isNotNull();
        assertThat(next.wakeable()).isTrue();
        assertThat(next.delay()).isEqualTo(POLL);
        assertThat(count(EventStatus.IN_FLIGHT)).isEqualTo(3);

        broker.acknowledge(0);
        assertThat(next.until().toCompletableFuture()).isDone();
        relayStep.waited(false);

        assertThat(relayStep.step())
                .as("the batch is marked without another lease, then the loop idles")
                .isEqualTo(LoopStep.Next.idle(POLL));
        assertThat(count(EventStatus.SENT)).isEqualTo(3);
        assertThat(broker.batches).hasSize(1);
    }

    @Test
    void
            givenAWakeUpWhileAShortBatchAwaitsItsAcknowledgements_whenStepping_thenTheNextBatchIsLeasedBeforeThatOneIsMarked() {
        AcknowledgingLater broker = new AcknowledgingLater();
        RelayStep relayStep = step(broker);
        append(2);
        relayStep.step();
        append(2);
        relayStep.waited(true);
        broker.acknowledge(0); // before the next step's lease returns: it is awaited after that lease

        LoopStep.Next next = relayStep.step();

        assertThat(broker.batches).hasSize(2);
        assertThat(broker.sentAtPublish)
                .as("the second batch went to the broker before the first was marked")
                .containsExactly(0L, 0L);
        assertThat(count(EventStatus.SENT)).isEqualTo(2);
        assertThat(count(EventStatus.IN_FLIGHT)).isEqualTo(2);
        assertThat(next.until()).isNotNull();

        broker.acknowledge(1);
        relayStep.waited(false);
        assertThat(relayStep.step())
                .as("leased while the first was in flight: once it is marked, the loop leases again at once")
                .isEqualTo(LoopStep.Next.MORE_WORK);
        assertThat(count(EventStatus.SENT)).isEqualTo(4);
    }

    /** A store whose second lease waits, up to a bound, for a mark to begin; it notes whether one did and where. */
    private final class LeaseWaitingForAMark extends ForwardingOutboxStore {
        final CountDownLatch markBegun = new CountDownLatch(1);
        final List<String> markThreads = new CopyOnWriteArrayList<>();
        volatile boolean markedDuringLease;
        private int leases;

        LeaseWaitingForAMark() {
            super(store);
        }

        @Override
        public List<OutboxEvent> lease(UUID leaseId, int limit, Instant now) {
            if (++leases == 2) {
                try {
                    markedDuringLease = markBegun.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.lease(leaseId, limit, now);
        }

        @Override
        public MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
            markThreads.add(Thread.currentThread().getName());
            markBegun.countDown();
            return super.markPublished(leaseId, eventIds, now);
        }
    }

    @Test
    void givenACompletionThread_whenDraining_thenTheFullBatchIsMarkedOnItWhileTheNextIsLeased() {
        append(15);
        LeaseWaitingForAMark waiting = new LeaseWaitingForAMark();
        RelayStep relayStep = relayStep(
                new LeaseTrackingStore(waiting), publisher, MissedWakeUps.none(), new CompletionThread("relay-1"));

        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.MORE_WORK);
        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.MORE_WORK);

        assertThat(waiting.markedDuringLease)
                .as("the first batch's mark began while the second lease was under way")
                .isTrue();
        assertThat(waiting.markThreads)
                .as("the full batch is marked on the completion thread; the short one after it, acknowledged "
                        + "at once, on the relay thread")
                .containsExactly("outbox-relay-1-marks", Thread.currentThread().getName());
        assertThat(count(EventStatus.SENT))
                .as("the step returns once the full batch is marked, and the short one after it too")
                .isEqualTo(15);
    }

    /**
     * A store whose second lease fails once the first batch's mark has committed: the database goes down
     * for good, or only that lease fails (its connection broken by an outage the mark has just ended).
     */
    private final class DownAfterTheFirstMark extends ForwardingOutboxStore {
        private final CountDownLatch marked = new CountDownLatch(1);
        private final boolean forGood;
        private int leases;

        DownAfterTheFirstMark(boolean forGood) {
            super(store);
            this.forGood = forGood;
        }

        @Override
        public List<OutboxEvent> lease(UUID leaseId, int limit, Instant now) {
            if (++leases == 2) {
                try {
                    marked.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                store.setAvailable(false);
                try {
                    return super.lease(leaseId, limit, now);
                } finally {
                    store.setAvailable(!forGood);
                }
            }
            return super.lease(leaseId, limit, now);
        }

        @Override
        public MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
            MarkResult result = super.markPublished(leaseId, eventIds, now);
            marked.countDown();
            return result;
        }
    }

    /** A step with a completion thread over a {@link DownAfterTheFirstMark} store. */
    private RelayStep markingBesideALeaseThatFails(boolean forGood) {
        return relayStep(
                new LeaseTrackingStore(new DownAfterTheFirstMark(forGood)),
                publisher,
                MissedWakeUps.none(),
                new CompletionThread("relay-1"));
    }

    @Test
    void givenTheDatabaseGoesDownAfterTheMarkBesideTheLease_whenTheLeaseFails_thenTheOutageIsLoggedOnceAndStays() {
        append(15);
        RelayStep relayStep = markingBesideALeaseThatFails(true);
        try {
            assertThat(relayStep.step()).isEqualTo(LoopStep.Next.MORE_WORK);
            relayStep.step(); // the mark beside it succeeds, then the lease fails
            relayStep.step(); // still down

            assertThat(storeOutage.isDown())
                    .as("the mark that succeeded before the lease failed does not end the outage")
                    .isTrue();
            assertThat(log.atLeast(Level.INFO)).singleElement().asString().startsWith("database unavailable");
        } finally {
            relayStep.finish();
        }
    }

    @Test
    void givenAnOutageTheMarkBesideTheLeaseEnds_whenTheLeaseFailsOnABrokenConnection_thenTheOutageIsLoggedOnce() {
        append(25);
        RelayStep relayStep = markingBesideALeaseThatFails(false);
        try {
            assertThat(relayStep.step()).isEqualTo(LoopStep.Next.MORE_WORK);
            storeOutage.failed("could not count events by status: EOFException", null); // another loop, meanwhile
            relayStep.step(); // the mark beside the lease ends the outage, then the lease fails
            assertThat(relayStep.step()).as("the database answers").isEqualTo(LoopStep.Next.MORE_WORK);

            assertThat(storeOutage.isDown()).isFalse();
            assertThat(log.atLeast(Level.INFO))
                    .as("the lease that failed as the outage ended belongs to that outage")
                    .hasSize(2)
                    .satisfiesExactly(
                            line -> assertThat(line).startsWith("database unavailable"),
                            line -> assertThat(line).startsWith("database available again"));
        } finally {
            relayStep.finish();
        }
    }

    @Test
    void givenAShortBatchAwaitingItsAcknowledgements_whenTheLoopStops_thenFinishMarksIt() {
        AcknowledgingLater broker = new AcknowledgingLater();
        RelayStep relayStep = step(broker);
        append(2);
        relayStep.step();
        broker.acknowledge(0);

        relayStep.finish();

        assertThat(count(EventStatus.SENT)).isEqualTo(2);
        assertThat(count(EventStatus.IN_FLIGHT)).isZero();
    }

    @Test
    void givenTheDatabaseIsDown_whenSteppingRepeatedly_thenItBacksOffExponentiallyUpToTheCap_andLogsTheOutageOnce() {
        append(3);
        RelayStep relayStep = step(publisher);
        store.setAvailable(false);

        List<Duration> pauses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            LoopStep.Next next = relayStep.step();
            assertThat(next.wakeable())
                    .as("a NOTIFY must not cut an outage backoff short")
                    .isFalse();
            pauses.add(next.delay());
        }

        assertThat(pauses)
                .containsExactly(
                        Duration.ofMillis(500),
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(4),
                        Duration.ofSeconds(4),
                        Duration.ofSeconds(4));
        assertThat(log.atLeast(Level.INFO)).singleElement().asString().startsWith("database unavailable");
    }

    @Test
    void givenTheDatabaseComesBack_whenStepping_thenTheRecoveryIsLoggedOnce_andTheBacklogDrains() {
        append(3);
        RelayStep relayStep = step(publisher);
        store.setAvailable(false);
        relayStep.step();
        relayStep.step();
        store.setAvailable(true);

        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.idle(POLL));
        relayStep.step();

        assertThat(count(EventStatus.SENT)).isEqualTo(3);
        assertThat(log.atLeast(Level.INFO)).hasSize(2);
        assertThat(log.atLeast(Level.INFO).get(1))
                .startsWith("database available again")
                .contains("2 failed attempt");
    }

    @Test
    void givenTheBrokerIsDown_whenStepping_thenItBacksOff_logsOnce_andProbesHealthInsteadOfSpendingAttempts() {
        append(3);
        RelayStep relayStep = step(publisher);
        publisher.setDown(true);

        LoopStep.Next first = relayStep.step();
        relayStep.step();
        relayStep.step();
        clock.advance(Duration.ofMinutes(10));
        relayStep.step();

        assertThat(first.wakeable()).isFalse();
        assertThat(publisher.publishCalls.get())
                .as("no batch is leased while the broker stays down")
                .isEqualTo(1);
        assertThat(store.all()).allSatisfy(event -> {
            assertThat(event.status()).isEqualTo(EventStatus.PENDING);
            assertThat(event.attempts()).isEqualTo(1);
        });
        assertThat(log.atLeast(Level.INFO))
                .singleElement()
                .asString()
                .startsWith("broker unavailable")
                .contains("connection refused");
    }

    @Test
    void givenTheBrokerRecovers_whenStepping_thenTheRecoveryIsLoggedOnce_andEverythingIsDelivered() {
        append(3);
        RelayStep relayStep = step(publisher);
        publisher.setDown(true);
        relayStep.step();
        relayStep.step();
        publisher.setDown(false);
        clock.advance(Duration.ofSeconds(5));

        relayStep.step();
        relayStep.step();

        assertThat(count(EventStatus.SENT)).isEqualTo(3);
        assertThat(publisher.recording.size()).isEqualTo(3);
        assertThat(log.atLeast(Level.INFO)).hasSize(2);
        assertThat(log.atLeast(Level.INFO).get(1)).startsWith("broker available again");
    }

    @Test
    @DisplayName("backing off from a database outage, the loop probes the database and is told when it is back")
    void givenTheDatabaseIsDown_thenTheBackoffProbesIt_andSaysWhenItIsBack() {
        append(3);
        RelayStep relayStep = step(publisher);
        store.setAvailable(false);

        LoopStep.Next next = relayStep.step();

        assertThat(next.probe()).as("the outage backoff probes the database").isNotNull();
        assertThat(next.probe().interval()).isEqualTo(Backoff.DEFAULT_PROBE_INTERVAL);
        assertThat(next.probe().recovered().getAsBoolean()).isFalse();
        store.setAvailable(true);
        assertThat(next.probe().recovered().getAsBoolean()).isTrue();
    }

    @Test
    @DisplayName("backing off from a broker outage, the loop probes the broker and is told when it is back")
    void givenTheBrokerIsDown_thenTheBackoffProbesIt_andSaysWhenItIsBack() {
        append(3);
        RelayStep relayStep = step(publisher);
        publisher.setDown(true);

        LoopStep.Next first = relayStep.step();
        LoopStep.Next second = relayStep.step();

        assertThat(first.probe()).isNotNull();
        assertThat(second.probe()).isNotNull();
        assertThat(second.probe().recovered().getAsBoolean()).isFalse();
        publisher.setDown(false);
        assertThat(second.probe().recovered().getAsBoolean()).isTrue();
        clock.advance(Duration.ofSeconds(5)); // the events' own retry delay
        relayStep.step();
        assertThat(count(EventStatus.SENT)).isEqualTo(3);
    }

    @Test
    void givenEventsFailButTheBrokerIsHealthy_whenStepping_thenItIsNoOutage_andTheEventsAreRetriedLater() {
        append(2);
        RelayStep relayStep = step(new Publisher() {
            @Override
            public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
                return CompletableFuture.completedFuture(batch.stream()
                        .map(event -> PublishOutcome.failed(event.id(), "leader changed", true))
                        .toList());
            }

            @Override
            public HealthCheck checkHealth() {
                return HealthCheck.up("fine");
            }

            @Override
            public void close() {}
        });

        assertThat(relayStep.step()).isEqualTo(LoopStep.Next.idle(POLL));
        assertThat(log.atLeast(Level.INFO)).isEmpty();
        assertThat(store.all()).allSatisfy(event -> assertThat(event.attempts()).isEqualTo(1));
    }

    @Test
    void givenATickThrowsAnError_whenStepping_thenTheLoopSurvives_logsItOnceAtError_andRecovers() {
        append(2);
        ThrowingPublisher throwing = new ThrowingPublisher(() -> new AssertionError("bug in a publisher"));
        RelayStep relayStep = step(throwing);

        LoopStep.Next first = relayStep.step();
        clock.advance(Duration.ofMinutes(5));
        relayStep.step();
        throwing.fail = null;
        store.sweepExpiredLeases(clock.instant(), 100);
        relayStep.step();

        assertThat(first.wakeable()).isFalse();
        assertThat(first.delay()).isPositive();
        assertThat(log.atLeast(Level.ERROR)).singleElement().asString().contains("bug in a publisher");
        assertThat(log.events().get(0).getThrowableProxy())
                .as("the stack trace is logged")
                .isNotNull();
        assertThat(log.atLeast(Level.INFO)).last().asString().startsWith("relay-1 loop working again");
        assertThat(count(EventStatus.SENT)).isEqualTo(2);
    }

    @Test
    void givenTheVirtualMachineIsFailing_whenStepping_thenTheErrorIsNotSwallowed() {
        append(1);
        RelayStep relayStep = step(new ThrowingPublisher(() -> new OutOfMemoryError("test")));

        assertThatThrownBy(relayStep::step).isInstanceOf(OutOfMemoryError.class);
    }

    /** Throws from publish (breaking the port's contract) until {@code fail} is cleared. */
    private static final class ThrowingPublisher implements Publisher {
        volatile Supplier<Error> fail;
        private final SwitchablePublisher healthy = new SwitchablePublisher();

        ThrowingPublisher(Supplier<Error> fail) {
            this.fail = fail;
        }

        @Override
        public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
            Supplier<Error> error = fail;
            if (error != null) {
                throw error.get();
            }
            return healthy.publish(batch, timeout);
        }

        @Override
        public HealthCheck checkHealth() {
            return HealthCheck.up("fine");
        }

        @Override
        public void close() {}
    }
}
