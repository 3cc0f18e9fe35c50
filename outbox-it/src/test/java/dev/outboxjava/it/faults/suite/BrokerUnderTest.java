package dev.outboxjava.it.faults.suite;

import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.it.faults.ExposureLog;
import dev.outboxjava.it.faults.FaultInjector;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import java.util.Map;

/** The broker side of a fault run: where events go, how relays reach it, how it fails. */
interface BrokerUnderTest extends AutoCloseable {

    /** kafka or rabbitmq. */
    String name();

    /** The topic or exchange the events are published to. */
    String destination();

    /** The worker's broker settings for a relay process of this name. */
    Map<String, String> workerEnvironment(String relayName);

    /** A publisher for an in-JVM relay of this name. */
    Publisher newPublisher(String relayName);

    /** Starts consuming everything that arrives. */
    BrokerInbox inbox();

    /** The broker outage fault. */
    FaultInjector outage(ExposureLog exposure);

    @Override
    void close();
}
