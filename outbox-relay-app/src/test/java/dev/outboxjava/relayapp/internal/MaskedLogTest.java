package dev.outboxjava.relayapp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.status.Status;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

@DisplayName("The standalone process's log configuration")
class MaskedLogTest {

    @Test
    @SuppressWarnings("unchecked")
    @DisplayName("masks passwords in any library's messages and stack traces")
    void masksPasswords() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        LoggerContext context = new LoggerContext();
        try {
            context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
            context.start();
            JoranConfigurator configurator = new JoranConfigurator();
            configurator.setContext(context);
            configurator.doConfigure(getClass().getClassLoader().getResource("outbox-worker-logback.xml"));
            ((OutputStreamAppender<ILoggingEvent>)
                            context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR"))
                    .setOutputStream(captured);
            Logger log = context.getLogger("some.library");
            log.info("connecting to jdbc:postgresql://db/app?user=relay&password=hunter2");
            log.warn("login failed", new IllegalStateException("amqp://relay:hunter2@rabbit:5672 refused"));
        } finally {
            context.stop();
        }
        String output = captured.toString(StandardCharsets.UTF_8);
        assertThat(output)
                .contains("password=***")
                .contains("amqp://relay:***@rabbit")
                .contains("IllegalStateException")
                .doesNotContain("hunter2");
        assertThat(context.getStatusManager().getCopyOfStatusList())
                .noneMatch(status -> status.getLevel() > Status.INFO);
    }
}
