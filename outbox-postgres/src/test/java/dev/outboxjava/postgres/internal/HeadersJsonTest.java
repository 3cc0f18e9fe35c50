package dev.outboxjava.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.OutboxStoreException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The headers column's JSON")
class HeadersJsonTest {

    @Test
    @DisplayName("round-trips headers with quotes, backslashes, control characters and non-ASCII, in order")
    void roundTrips() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        headers.put("quote\"and\\slash", "line\nbreak\ttab\u0001");
        headers.put("ünïcödé", "日本語 😀");
        headers.put("", "");

        String json = HeadersJson.write(headers);

        assertThat(HeadersJson.read(json)).containsExactlyEntriesOf(headers);
        assertThat(json).doesNotContain("\n", "\t", "\u0001");
    }

    @Test
    @DisplayName("reads the text PostgreSQL prints for a jsonb object, with its spaces and escapes")
    void readsPostgresOutput() {
        assertThat(HeadersJson.read("{\"a\": \"1\", \"b\\u00e9\": \"x\\/y\\\"z\"}"))
                .containsExactly(Map.entry("a", "1"), Map.entry("bé", "x/y\"z"));
        assertThat(HeadersJson.read("{}")).isEmpty();
        assertThat(HeadersJson.read(" { } ")).isEmpty();
        assertThat(HeadersJson.read(null)).isEmpty();
        assertThat(HeadersJson.write(Map.of())).isEqualTo("{}");
    }

    @Test
    @DisplayName("given a value that is not a string, or text that is not one object, then the error says so")
    void refusesOtherJson() {
        for (String other :
                new String[] {"{\"a\": 1}", "[\"a\"]", "{\"a\": \"b\"} x", "{\"a\": \"b\"", "{\"a\" \"b\"}"}) {
            assertThatThrownBy(() -> HeadersJson.read(other))
                    .as(other)
                    .isInstanceOf(OutboxStoreException.class)
                    .hasMessageContaining("JSON object of strings");
        }
    }
}
