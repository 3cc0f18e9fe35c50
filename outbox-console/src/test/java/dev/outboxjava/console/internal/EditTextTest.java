package dev.outboxjava.console.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EditTextTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "line1\r\nline2 \u001b[0m",
                "bell\u0007",
                "the text \\u001B, not ESC",
                "a backslash then ESC \\\u001b, two then the text \\\\u001b",
                "{\"path\":\"C:\\\\dir\",\"quote\":\"\\\"\",\"json escape\":\"\\u00e9\"}",
                "\nleading line break, NUL \u0000, DEL \u007f, C1 \u0085, \u2028",
                "\\",
                "\\u001",
                "trailing \\"
            })
    void writesBackExactlyWhatItRead(String original) {
        for (boolean lineBreaksRaw : new boolean[] {true, false}) {
            String shown = EditText.encode(original, lineBreaksRaw);
            assertThat(shown).doesNotContainPattern("[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u2028\\u2029]");
            assertThat(EditText.decode(shown, lineBreaksRaw)).isEqualTo(original);
            // a browser sends every line break of a text box as CR LF
            assertThat(EditText.decode(shown.replace("\n", "\r\n"), lineBreaksRaw))
                    .isEqualTo(original);
        }
    }

    @Test
    void aControlCharacterIsItsEscapeAndTheTextOfOneIsDoubled() {
        assertThat(EditText.encode("\u001b[0m and \\u001B", true)).isEqualTo("\\u001B[0m and \\\\u001B");
        assertThat(EditText.encode("a\r\nb", true)).isEqualTo("a\\u000D\nb");
        assertThat(EditText.encode("C:\\dir \\n", true)).isEqualTo("C:\\dir \\n");
        assertThat(EditText.decode("typed \\u0007 and \\\\u0007", true)).isEqualTo("typed \u0007 and \\u0007");
        // an escape of a character that is not a control character is text
        assertThat(EditText.decode("\\u00e9", true)).isEqualTo("\\u00e9");
    }

    @Test
    void headersRoundTripWithLineBreaksAndSpacesInTheirValues() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("x-bell", "bell\u0007");
        headers.put("x-multi", "one\ntwo\ttab");
        headers.put("x-spaces", "  padded  ");
        headers.put("x-empty", "");
        List<String> problems = new ArrayList<>();
        String shown = EditText.encodeHeaders(headers);

        assertThat(shown.lines()).hasSize(4);
        assertThat(EditText.decodeHeaders(shown.replace("\n", "\r\n"), problems))
                .containsExactlyEntriesOf(headers);
        assertThat(problems).isEmpty();
    }
}
