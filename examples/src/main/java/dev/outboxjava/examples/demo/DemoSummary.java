package dev.outboxjava.examples.demo;

/**
 * What the demo saw, checked against the database at the end.
 *
 * @param written    orders committed, each with its {@code order.placed} event
 * @param rejected   orders rolled back (out of stock) together with their already appended event
 * @param consumed   distinct events the consumer applied
 * @param duplicates deliveries the consumer recognised as already applied (at-least-once at work)
 * @param lost       committed orders whose event never arrived: must be 0
 * @param phantoms   events applied for orders that were rolled back: must be 0
 * @param relayKills relays killed with SIGKILL during the run
 * @param latencyP50Millis commit-to-consume latency, median
 * @param latencyP99Millis commit-to-consume latency, 99th percentile
 */
public record DemoSummary(
        long written,
        long rejected,
        long consumed,
        long duplicates,
        long lost,
        long phantoms,
        int relayKills,
        double latencyP50Millis,
        double latencyP99Millis) {

    /** Whether nothing was lost and nothing appeared that should not have. */
    public boolean ok() {
        return lost == 0 && phantoms == 0 && consumed == written;
    }

    /** The one line the README promises. */
    public String line() {
        return "written " + written + ", consumed " + consumed + ", duplicates " + duplicates + ", lost " + lost;
    }
}
