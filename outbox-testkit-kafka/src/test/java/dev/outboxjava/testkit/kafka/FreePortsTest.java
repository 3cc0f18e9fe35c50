package dev.outboxjava.testkit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The broker's listeners get ports of their own: two listeners on one port stop it from starting. Ports
 * asked for one after the other come back equal about once in 7,000 pairs here, so the test asks often
 * enough to see that.
 */
class FreePortsTest {

    @Test
    void everyListenerGetsADifferentFreePort() {
        for (int attempt = 0; attempt < 30_000; attempt++) {
            int[] ports = EmbeddedKafkaBroker.freePorts(2);
            assertThat(Arrays.stream(ports).distinct().count())
                    .as("ports %s", Arrays.toString(ports))
                    .isEqualTo(2);
            assertThat(Arrays.stream(ports).min().orElseThrow()).isPositive();
        }
    }
}
