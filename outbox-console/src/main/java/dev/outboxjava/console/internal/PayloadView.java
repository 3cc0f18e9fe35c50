package dev.outboxjava.console.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** A payload as an operator reads it: JSON pretty-printed, other text as it is, bytes as a hex dump. */
public final class PayloadView {

    private static final ObjectMapper JSON =
            new ObjectMapper().enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private PayloadView() {}

    /** The payload as UTF-8 text, when it is valid UTF-8. */
    public static Optional<String> utf8(byte[] payload) {
        try {
            return Optional.of(StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(payload))
                    .toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /** What the detail page shows, escaped: a pre block of pretty JSON, text or hex, with what it is. */
    public static String render(byte[] payload) {
        Optional<String> text = utf8(payload);
        if (text.isPresent()) {
            try {
                JsonNode tree = JSON.readTree(text.get());
                if (tree != null) {
                    return "<p class=\"hint\">JSON, " + payload.length + " bytes</p><pre id=\"payload\">"
                            + Html.shown(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(tree)) + "</pre>";
                }
            } catch (java.io.IOException notJson) {
                // shown as text below
            }
            return "<p class=\"hint\">text, " + payload.length + " bytes</p><pre id=\"payload\">"
                    + Html.shown(text.get()) + "</pre>";
        }
        return "<p class=\"hint\">binary, " + payload.length + " bytes (hex)</p><pre id=\"payload\">" + hex(payload)
                + "</pre>";
    }

    /** Sixteen bytes a line, offset first. */
    static String hex(byte[] payload) {
        StringBuilder out = new StringBuilder();
        int shown = Math.min(payload.length, 64 * 1024);
        for (int i = 0; i < shown; i += 16) {
            out.append(String.format("%08x ", i));
            for (int j = i; j < Math.min(i + 16, shown); j++) {
                out.append(String.format(" %02x", payload[j] & 0xff));
            }
            out.append('\n');
        }
        if (shown < payload.length) {
            out.append("… ").append(payload.length - shown).append(" more bytes\n");
        }
        return out.toString();
    }
}
