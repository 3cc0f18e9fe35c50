package dev.outboxjava.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("jOOQ's banner")
class JooqBannerTest {

    @Test
    @DisplayName("is switched off once the library is used: no logo, no tip of the day in the application's log")
    void offOnceUsed() {
        OutboxWriter.create(PostgresOutboxConfig.ofDefaults());

        assertThat(System.getProperty(JooqBanner.NO_LOGO)).isEqualTo("true");
        assertThat(System.getProperty(JooqBanner.NO_TIPS)).isEqualTo("true");
    }

    @Test
    @DisplayName("stays as the application set it")
    void applicationDecides() {
        String before = System.getProperty(JooqBanner.NO_TIPS);
        System.setProperty(JooqBanner.NO_TIPS, "false");
        try {
            JooqBanner.silence();

            assertThat(System.getProperty(JooqBanner.NO_TIPS)).isEqualTo("false");
        } finally {
            System.setProperty(JooqBanner.NO_TIPS, before == null ? "true" : before);
        }
    }
}
