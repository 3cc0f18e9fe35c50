package dev.outboxjava.testkit;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

/** Renders what was published as a numbered list for failure messages. */
final class EventListing {

    /** Longest payload excerpt shown; a failure message should stay readable. */
    private static final int PAYLOAD_EXCERPT = 120;
    /** Most lines listed; the rest are counted. */
    private static final int MAX_LINES = 50;

    private EventListing() {}

    static String ofEvents(List<OutboxEvent> events) {
        return list(events, EventListing::line);
    }

    static String ofMessages(List<ReceivedMessage> messages) {
        return list(messages, EventListing::line);
    }

    static <T> String list(List<T> items, Function<T, String> line) {
        if (items.isEmpty()) {
            return "nothing";
        }
        StringBuilder text = new StringBuilder()
                .append(items.size())
                .append(items.size() == 1 ? " event" : " events")
                .append(':');
        for (int i = 0; i < items.size() && i < MAX_LINES; i++) {
            text.append(System.lineSeparator())
                    .append("  ")
                    .append(i + 1)
                    .append(". ")
                    .append(line.apply(items.get(i)));
        }
        if (items.size() > MAX_LINES) {
            text.append(System.lineSeparator())
                    .append("  ... and ")
                    .append(items.size() - MAX_LINES)
                    .append(" more");
        }
        return text.toString();
    }

    static String line(OutboxEvent event) {
        return event.type() + " key=" + event.key().orElse("-") + " id=" + event.id() + " destination="
                + event.destination()
                + headers(event.headers().toString(), event.headers().isEmpty())
                + " payload=" + payload(event.payload());
    }

    static String line(ReceivedMessage message) {
        return message.type() + " key=" + message.key().orElse("-") + " id=" + message.id()
                + headers(message.headers().toString(), message.headers().isEmpty())
                + " payload=" + payload(message.payload());
    }

    private static String headers(String rendered, boolean empty) {
        return empty ? "" : " headers=" + rendered;
    }

    /** A duration as people write it: {@code 10 s}, {@code 500 ms}. */
    static String duration(java.time.Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }

    /** The payload as text when it is UTF-8, cut to a readable length; otherwise its size. */
    static String payload(byte[] payload) {
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(payload))
                    .toString();
        } catch (CharacterCodingException e) {
            return "<" + payload.length + " bytes, not UTF-8>";
        }
        if (text.chars().anyMatch(c -> Character.isISOControl(c) && c != '\n' && c != '\r' && c != '\t')) {
            return "<" + payload.length + " bytes, binary>";
        }
        text = text.replace('\n', ' ').replace('\r', ' ');
        return text.length() <= PAYLOAD_EXCERPT
                ? text
                : text.substring(0, PAYLOAD_EXCERPT) + "... (" + payload.length + " bytes)";
    }
}
