package dev.outboxjava.relayapp.internal.logging;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.IThrowableProxy;
import dev.outboxjava.relayapp.internal.Secrets;

/** {@code %ex} of the standalone process's log, masked like {@link MaskedMessageConverter}. */
public final class MaskedThrowableConverter extends ThrowableProxyConverter {

    @Override
    protected String throwableProxyToString(IThrowableProxy proxy) {
        return Secrets.maskText(super.throwableProxyToString(proxy));
    }
}
