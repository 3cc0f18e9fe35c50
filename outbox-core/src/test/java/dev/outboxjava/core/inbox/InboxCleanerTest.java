package dev.outboxjava.core.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Inbox cleaner")
class InboxCleanerTest {

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final InMemoryInbox<InboxKey> inbox = InMemoryInbox.create(clock);

    @Test
    @DisplayName("deletes records older than the retention in chunks, bounded per tick; recent ones stay")
    void chunkedAndBounded() {
        for (int i = 0; i < 7; i++) {
            inbox.process("c", "old-" + i, key -> {});
        }
        clock.advance(Duration.ofDays(2));
        inbox.process("c", "recent", key -> {});
        InboxCleaner cleaner = new InboxCleaner(inbox, new InboxCleanerConfig(Duration.ofDays(1), 2, 3), clock);

        assertThat(cleaner.runOnce()).isEqualTo(6);
        assertThat(cleaner.runOnce()).isEqualTo(1);
        assertThat(cleaner.runOnce()).isZero();
        assertThat(inbox.isProcessed("c", "recent")).isTrue();
    }

    @Test
    @DisplayName("refuses a zero retention and empty chunks, naming the setting")
    void validation() {
        assertThatThrownBy(() -> new InboxCleanerConfig(Duration.ZERO, 1, 1))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("inbox.retention");
        assertThatThrownBy(() -> new InboxCleanerConfig(Duration.ofDays(1), 0, 1))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("inbox.cleanupChunkSize");
        assertThat(InboxCleanerConfig.ofDefaults().retention()).isEqualTo(Duration.ofDays(14));
    }
}
