package dev.outboxjava.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The Spring Boot service's crash check")
class CrashCheckIT {

    @Test
    @DisplayName("an instance killed with SIGKILL mid-drain loses no committed order's event")
    void nothingLost() throws Exception {
        CrashCheck.Result result = new CrashCheck(System.out, 400).run();

        assertThat(result.committed()).isPositive();
        assertThat(result.lost()).isZero();
    }
}
