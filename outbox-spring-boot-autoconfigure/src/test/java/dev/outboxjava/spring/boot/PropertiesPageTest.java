package dev.outboxjava.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * docs/spring-boot.md lists the {@code outbox.*} properties exactly as the configuration processor
 * records them (names, defaults, descriptions from the Javadoc of {@link OutboxProperties}). Run with
 * {@code -Doutbox.docs.regenerate=true} to rewrite the table after changing the properties.
 */
@DisplayName("The Spring Boot page's property table")
class PropertiesPageTest {

    static final String BEGIN =
            "<!-- BEGIN GENERATED FROM spring-configuration-metadata.json: edit OutboxProperties, then regenerate -->";
    static final String END = "<!-- END GENERATED -->";
    private static final Path PAGE =
            Path.of("").toAbsolutePath().resolve("../docs/spring-boot.md").normalize();

    @Test
    @DisplayName("is the configuration processor's metadata, verbatim")
    void matchesTheMetadata() throws IOException {
        String page = Files.readString(PAGE);
        String generated = page.substring(0, page.indexOf(BEGIN) + BEGIN.length()) + "\n" + table()
                + page.substring(page.indexOf(END));
        if (Boolean.getBoolean("outbox.docs.regenerate")) {
            Files.writeString(PAGE, generated);
        }
        assertThat(page)
                .as("docs/spring-boot.md differs from the metadata; regenerate it with "
                        + "-Doutbox.docs.regenerate=true")
                .isEqualTo(generated);
    }

    static String table() throws IOException {
        JsonNode metadata;
        try (InputStream json =
                PropertiesPageTest.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            metadata = new ObjectMapper().readTree(json);
        }
        List<JsonNode> properties = new ArrayList<>();
        metadata.get("properties").forEach(property -> {
            if (property.get("name").asText().startsWith("outbox.")) {
                properties.add(property);
            }
        });
        properties.sort(Comparator.comparing(property -> property.get("name").asText()));
        StringBuilder table = new StringBuilder("| property | default | meaning |\n|---|---|---|\n");
        for (JsonNode property : properties) {
            JsonNode value = property.get("defaultValue");
            table.append("| `")
                    .append(property.get("name").asText())
                    .append("` | ")
                    .append(value == null ? "—" : "`" + value.asText() + "`")
                    .append(" | ")
                    .append(property.path("description")
                            .asText()
                            .replace("|", "\\|")
                            .replace("\n", " "))
                    .append(" |\n");
        }
        return table.toString();
    }
}
