package dev.outboxjava.relayapp.internal.logging;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.outboxjava.relayapp.internal.Secrets;

/**
 * {@code %msg} of the standalone process's log, with passwords in URLs and {@code password=...}
 * pairs masked: a last line of defence for messages of libraries that quote a connection string.
 */
public final class MaskedMessageConverter extends MessageConverter {

    @Override
    public String convert(ILoggingEvent event) {
        return Secrets.maskText(super.convert(event));
    }
}
