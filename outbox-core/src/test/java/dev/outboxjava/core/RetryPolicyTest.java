package dev.outboxjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("RetryPolicy")
class RetryPolicyTest {

    private static final Instant NOW = Instant.parse("2024-01-01T00:00:00Z");

    @Nested
    @DisplayName("backoff")
    class Backoff {

        @Test
        @DisplayName("without jitter is exactly initial × multiplier^(n-1), capped at the maximum")
        void exactWithoutJitter() {
            RetryPolicy policy = RetryPolicy.builder()
                    .initialDelay(Duration.ofMillis(100))
                    .multiplier(3)
                    .maxDelay(Duration.ofSeconds(5))
                    .jitter(0)
                    .build();

            assertThat(policy.delayAfter(1)).isEqualTo(Duration.ofMillis(100));
            assertThat(policy.delayAfter(2)).isEqualTo(Duration.ofMillis(300));
            assertThat(policy.delayAfter(3)).isEqualTo(Duration.ofMillis(900));
            assertThat(policy.delayAfter(4)).isEqualTo(Duration.ofMillis(2700));
            assertThat(policy.delayAfter(5)).isEqualTo(Duration.ofSeconds(5));
            assertThat(policy.delayAfter(1_000)).isEqualTo(Duration.ofSeconds(5));
        }

        @Test
        @DisplayName("with a multiplier of 1 is constant")
        void constantWithMultiplierOne() {
            RetryPolicy policy = RetryPolicy.builder()
                    .initialDelay(Duration.ofSeconds(2))
                    .multiplier(1)
                    .jitter(0)
                    .build();
            for (int n = 1; n <= 50; n++) {
                assertThat(policy.delayAfter(n)).isEqualTo(Duration.ofSeconds(2));
            }
        }

        @ParameterizedTest(name = "jitter {0}")
        @ValueSource(doubles = {0.0, 0.1, 0.2, 0.5, 1.0})
        @DisplayName(
                "stays within ±jitter of initial × multiplier^(n-1) and never above the maximum, for every attempt")
        void withinBounds(double jitter) {
            Duration initial = Duration.ofMillis(250);
            double multiplier = 2.0;
            Duration max = Duration.ofMinutes(1);
            RetryPolicy policy = RetryPolicy.builder()
                    .initialDelay(initial)
                    .multiplier(multiplier)
                    .maxDelay(max)
                    .jitter(jitter)
                    .seed(42)
                    .build();

            for (int n = 1; n <= 40; n++) {
                double base = initial.toNanos() * Math.pow(multiplier, n - 1);
                long low = (long) Math.min(base * (1 - jitter), max.toNanos()) - 1;
                long high = (long) Math.min(base * (1 + jitter), max.toNanos());
                for (int sample = 0; sample < 200; sample++) {
                    long delay = policy.delayAfter(n).toNanos();
                    assertThat(delay)
                            .as("attempt %d sample %d", n, sample)
                            .isBetween(low, high)
                            .isLessThanOrEqualTo(max.toNanos());
                }
            }
        }

        @Test
        @DisplayName("jitter actually spreads the delays of one attempt")
        void jitterSpreads() {
            RetryPolicy policy = RetryPolicy.builder().jitter(0.5).seed(1).build();
            List<Duration> delays = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                delays.add(policy.delayAfter(3));
            }
            assertThat(delays.stream().distinct().count()).isGreaterThan(40);
        }

        @Test
        @DisplayName("is the same sequence for two policies with the same seed")
        void deterministicUnderSeed() {
            assertThat(sequence(RetryPolicy.builder().seed(7).build()))
                    .isEqualTo(sequence(RetryPolicy.builder().seed(7).build()));
        }

        @Test
        @DisplayName("differs for two policies with different seeds")
        void differentSeedsDiffer() {
            assertThat(sequence(RetryPolicy.builder().seed(7).build()))
                    .isNotEqualTo(sequence(RetryPolicy.builder().seed(8).build()));
        }

        @Test
        @DisplayName("refuses an attempt number below 1")
        void refusesAttemptZero() {
            assertThatThrownBy(() -> RetryPolicy.ofDefaults().delayAfter(0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at least 1");
        }

        private List<Duration> sequence(RetryPolicy policy) {
            List<Duration> delays = new ArrayList<>();
            for (int n = 1; n <= 30; n++) {
                delays.add(policy.delayAfter(n));
                delays.add(policy.delayAfter(n));
            }
            return delays;
        }
    }

    @Nested
    @DisplayName("defaults")
    class Defaults {

        @Test
        @DisplayName("are 1 s initial delay, ×2, 5 min cap, ±20 % jitter")
        void documentedDefaults() {
            RetryPolicy policy = RetryPolicy.ofDefaults();
            assertThat(policy.initialDelay())
                    .isEqualTo(Duration.ofSeconds(1))
                    .isEqualTo(RetryPolicy.DEFAULT_INITIAL_DELAY);
            assertThat(policy.multiplier()).isEqualTo(2.0);
            assertThat(policy.maxDelay()).isEqualTo(Duration.ofMinutes(5));
            assertThat(policy.jitter()).isEqualTo(0.2);
            assertThat(policy.toString()).contains("PT1S", "PT5M");
        }
    }

    @Nested
    @DisplayName("build() rejects, naming the setting,")
    class Validation {

        private void assertRejected(UnaryOperator<RetryPolicy.Builder> change, String setting, String reason) {
            assertThatThrownBy(() -> change.apply(RetryPolicy.builder()).build())
                    .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
                        assertThat(e.setting()).isEqualTo(setting);
                        assertThat(e.getMessage()).contains("'" + setting + "'", reason);
                    });
        }

        @Test
        @DisplayName("a zero initial delay")
        void zeroInitialDelay() {
            assertRejected(b -> b.initialDelay(Duration.ZERO), "retry.initialDelay", "must be positive");
        }

        @Test
        @DisplayName("a negative initial delay")
        void negativeInitialDelay() {
            assertRejected(b -> b.initialDelay(Duration.ofSeconds(-1)), "retry.initialDelay", "must be positive");
        }

        @ParameterizedTest(name = "multiplier {0}")
        @ValueSource(doubles = {0.99, 0, -2, Double.NaN, Double.POSITIVE_INFINITY})
        @DisplayName("a multiplier below 1 or not finite")
        void badMultiplier(double value) {
            assertRejected(b -> b.multiplier(value), "retry.multiplier", ">= 1");
        }

        @Test
        @DisplayName("a maximum delay below the initial delay")
        void maxBelowInitial() {
            assertRejected(
                    b -> b.initialDelay(Duration.ofSeconds(10)).maxDelay(Duration.ofSeconds(9)),
                    "retry.maxDelay",
                    "at least retry.initialDelay");
        }

        @ParameterizedTest(name = "jitter {0}")
        @ValueSource(doubles = {-0.01, 1.01, Double.NaN})
        @DisplayName("a jitter outside 0..1")
        void badJitter(double value) {
            assertRejected(b -> b.jitter(value), "retry.jitter", "between 0 and 1");
        }
    }

    @Nested
    @DisplayName("decide, for an event that just failed,")
    class Decide {

        private final ManualClock clock = new ManualClock(NOW);
        private final RetryPolicy policy = RetryPolicy.builder()
                .initialDelay(Duration.ofSeconds(1))
                .jitter(0)
                .build();

        private OutboxEvent leasedEvent(int attempts, int maxAttempts) {
            OutboxEvent event = OutboxEvent.builder()
                    .type("t")
                    .destination("d")
                    .payload(new byte[0])
                    .maxAttempts(maxAttempts)
                    .clock(clock)
                    .build();
            return event.withDelivery(
                    EventStatus.IN_FLIGHT,
                    attempts,
                    event.lastError(),
                    event.nextAttemptAt(),
                    event.leasedAt(),
                    event.leaseId(),
                    event.sentAt());
        }

        @Test
        @DisplayName("schedules a retry after the backoff for the failures so far when budget is left")
        void retriesWithBudgetLeft() {
            RetryDecision decision = policy.decide(leasedEvent(2, 5), true, NOW);
            assertThat(decision.isDeadLetter()).isFalse();
            // third failure: 1 s × 2^2
            assertThat(decision.nextAttemptAt()).contains(NOW.plusSeconds(4));
        }

        @Test
        @DisplayName("schedules a retry on the first failure of a fresh event")
        void retriesFirstFailure() {
            assertThat(policy.decide(leasedEvent(0, 2), true, NOW).nextAttemptAt())
                    .contains(NOW.plusSeconds(1));
        }

        @Test
        @DisplayName("dead-letters when this failure spends the budget")
        void deadLettersWhenBudgetSpent() {
            assertThat(policy.decide(leasedEvent(4, 5), true, NOW).isDeadLetter())
                    .isTrue();
        }

        @Test
        @DisplayName("dead-letters at once an event whose budget is one attempt")
        void deadLettersBudgetOfOne() {
            assertThat(policy.decide(leasedEvent(0, 1), true, NOW).isDeadLetter())
                    .isTrue();
        }

        @Test
        @DisplayName("dead-letters a failure that cannot be retried, whatever the budget")
        void deadLettersNotRetryable() {
            RetryDecision decision = policy.decide(leasedEvent(0, 10), false, NOW);
            assertThat(decision.isDeadLetter()).isTrue();
            assertThat(decision.nextAttemptAt()).isEmpty();
        }
    }

    @Nested
    @DisplayName("for an unroutable destination")
    class UnroutableBudget {

        private final RetryPolicy policy =
                RetryPolicy.builder().unroutableMaxAttempts(3).jitter(0).build();
        private final ManualClock clock = new ManualClock(NOW);

        private OutboxEvent leasedEvent(int attempts, int maxAttempts) {
            OutboxEvent event = OutboxEvent.builder()
                    .type("t")
                    .destination("d")
                    .payload(new byte[0])
                    .maxAttempts(maxAttempts)
                    .clock(clock)
                    .build();
            return event.withDelivery(
                    EventStatus.IN_FLIGHT,
                    attempts,
                    event.lastError(),
                    event.nextAttemptAt(),
                    event.leasedAt(),
                    event.leaseId(),
                    event.sentAt());
        }

        @Test
        @DisplayName("retries until the unroutable budget is spent, then dead-letters, whatever the event's own budget")
        void ownBudget() {
            assertThat(policy.decide(leasedEvent(0, 10), true, true, NOW).isDeadLetter())
                    .isFalse();
            assertThat(policy.decide(leasedEvent(1, 10), true, true, NOW).isDeadLetter())
                    .isFalse();
            assertThat(policy.decide(leasedEvent(2, 10), true, true, NOW).isDeadLetter())
                    .isTrue();
            assertThat(policy.decide(leasedEvent(2, 10), true, false, NOW).isDeadLetter())
                    .as("not unroutable")
                    .isFalse();
        }

        @Test
        @DisplayName("says which rule dead-lettered: not retryable, the event's budget, or the unroutable budget "
                + "only when it is the smaller one")
        void reasons() {
            assertThat(policy.decide(leasedEvent(0, 10), false, true, NOW).deadLetterReason())
                    .contains(DeadLetterReason.notRetryable());
            assertThat(policy.decide(leasedEvent(2, 10), true, true, NOW).deadLetterReason())
                    .contains(new DeadLetterReason(DeadLetterReason.Kind.UNROUTABLE_BUDGET, 3));
            assertThat(policy.decide(leasedEvent(1, 2), true, true, NOW).deadLetterReason())
                    .as("the event's own budget is smaller")
                    .contains(new DeadLetterReason(DeadLetterReason.Kind.ATTEMPT_BUDGET, 2));
            assertThat(policy.decide(leasedEvent(2, 3), true, true, NOW).deadLetterReason())
                    .as("both budgets are 3")
                    .contains(new DeadLetterReason(DeadLetterReason.Kind.ATTEMPT_BUDGET, 3));
            assertThat(policy.decide(leasedEvent(9, 10), true, false, NOW).deadLetterReason())
                    .contains(new DeadLetterReason(DeadLetterReason.Kind.ATTEMPT_BUDGET, 10));
            assertThat(policy.decide(leasedEvent(1, 10), true, true, NOW).deadLetterReason())
                    .as("a retry has no reason")
                    .isEmpty();
            assertThat(new DeadLetterReason(DeadLetterReason.Kind.UNROUTABLE_BUDGET, 3).describe())
                    .isEqualTo(
                            "the unroutable-destination budget of 3 (outbox.retry.unroutable.max.attempts) was spent");
            assertThat(new DeadLetterReason(DeadLetterReason.Kind.ATTEMPT_BUDGET, 10).describe())
                    .isEqualTo("the event's attempt budget of 10 (max attempts) was spent");
        }

        @Test
        @DisplayName("defaults to 3 and refuses less than 1, naming the setting")
        void defaultsAndValidation() {
            assertThat(RetryPolicy.ofDefaults().unroutableMaxAttempts()).isEqualTo(3);
            assertThatThrownBy(
                            () -> RetryPolicy.builder().unroutableMaxAttempts(0).build())
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("unroutableMaxAttempts");
        }
    }
}
