package dev.outboxjava.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.relayapp.ConfigKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The configuration reference ({@code docs/configuration.md}) is generated from the settings definitions
 * ({@link ConfigKey}): the region between the markers is {@link ConfigKey#markdownTable()}, verbatim. This test
 * fails when the page and the code disagree; run it with {@code -Doutbox.docs.regenerate=true} to rewrite the
 * region from the code instead.
 */
@DisplayName("The configuration page")
class ConfigurationPageTest {

    static final Path PAGE =
            Path.of("").toAbsolutePath().resolve("../docs/configuration.md").normalize();
    static final String BEGIN =
            "<!-- BEGIN GENERATED FROM ConfigKey.markdownTable(): edit ConfigKey, then regenerate -->";
    static final String END = "<!-- END GENERATED -->";
    private static final String REGENERATE = "outbox.docs.regenerate";

    @Test
    @DisplayName("lists every setting exactly as ConfigKey defines it")
    void pageMatchesTheSettingsDefinitions() throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        String generated = withTable(page, ConfigKey.markdownTable());
        if (Boolean.getBoolean(REGENERATE) && !generated.equals(page)) {
            Files.writeString(PAGE, generated, StandardCharsets.UTF_8);
            page = generated;
        }

        assertThat(page)
                .as("docs/configuration.md differs from ConfigKey.markdownTable(); regenerate it with " + "-D"
                        + REGENERATE + "=true (see the page)")
                .isEqualTo(generated);
    }

    @Test
    @DisplayName("given a page whose table lacks a key, when checked, then it differs from the generated page")
    void detectsAStaleTable() {
        String table = ConfigKey.markdownTable();
        String stale = "# Configuration\n\n" + BEGIN + "\n"
                + table.lines()
                        .filter(line -> !line.contains(ConfigKey.LOG_LEVEL.property()))
                        .reduce("", (a, b) -> a + b + "\n")
                + END + "\n";

        assertThat(withTable(stale, table)).isNotEqualTo(stale).contains(ConfigKey.LOG_LEVEL.env());
        assertThat(withTable(withTable(stale, table), table)).isEqualTo(withTable(stale, table));
    }

    @Test
    @DisplayName("given a page without the markers, when generated, then it says which markers are missing")
    void needsTheMarkers() {
        assertThatThrownBy(() -> withTable("# Configuration\n", ConfigKey.markdownTable()))
                .hasMessageContaining(BEGIN);
    }

    /** The page with the region between the markers replaced by the table. */
    static String withTable(String page, String table) {
        int begin = page.indexOf(BEGIN);
        int end = page.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalStateException(
                    "docs/configuration.md must hold the line '" + BEGIN + "' followed later by '" + END + "'");
        }
        return page.substring(0, begin + BEGIN.length()) + "\n" + table.strip() + "\n" + page.substring(end);
    }
}
