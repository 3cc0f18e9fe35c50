package dev.outboxjava.testkit.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README honest: every line of every {@code java} block appears, in order, in the source file
 * the README names before the block (trailing comments and {@code // ...} elision lines aside), so a
 * snippet cannot drift away from code that compiles.
 */
class ReadmeSnippetsTest {

    private static final Path MODULE = Path.of("").toAbsolutePath();
    private static final Pattern SOURCE = Pattern.compile("`((?:examples/)?src/test/java/[^`]+\\.java)`");

    record Snippet(Path source, List<String> lines, int readmeLine) {}

    @Test
    @DisplayName("every java snippet of the README is taken from the compiled source it names")
    void snippetsMatchTheirSources() throws IOException {
        List<Snippet> snippets = snippets(Files.readAllLines(MODULE.resolve("README.md")));

        assertThat(snippets).hasSizeGreaterThanOrEqualTo(7);
        for (Snippet snippet : snippets) {
            String source = withoutWhitespace(Files.readString(snippet.source()));
            int at = 0;
            for (String line : snippet.lines()) {
                int found = indexFrom(source, at, line);
                assertThat(found)
                        .as(
                                "README line %d block, line '%s' in %s (in order)",
                                snippet.readmeLine(), line, MODULE.relativize(snippet.source()))
                        .isNotNegative();
                at = found + 1;
            }
        }
    }

    /**
     * Where the line's code stands in the source from {@code from} on, whatever the line breaks and
     * indentation (the formatter may wrap a call the README shows on one line); -1 if nowhere.
     */
    private static int indexFrom(String source, int from, String line) {
        int found = source.indexOf(withoutWhitespace(line), from);
        return found >= 0 ? found : source.indexOf(withoutWhitespace(line.replaceFirst("\\s+// .*$", "")), from);
    }

    private static String withoutWhitespace(String text) {
        return text.replaceAll("\\s+", "");
    }

    private static List<Snippet> snippets(List<String> readme) {
        List<Snippet> snippets = new ArrayList<>();
        Path source = null;
        for (int i = 0; i < readme.size(); i++) {
            String line = readme.get(i);
            Matcher named = SOURCE.matcher(line);
            while (named.find()) {
                String path = named.group(1);
                source = path.startsWith("examples/") ? MODULE.resolveSibling(path) : MODULE.resolve(path);
            }
            if (line.strip().equals("```java")) {
                List<String> lines = new ArrayList<>();
                int start = i + 1;
                for (i = start; !readme.get(i).strip().equals("```"); i++) {
                    String code = readme.get(i).strip();
                    if (!code.isEmpty() && !code.startsWith("// ...")) {
                        lines.add(code);
                    }
                }
                assertThat(source)
                        .as("README line %d: a java block needs a source file named before it", start)
                        .isNotNull();
                snippets.add(new Snippet(source, lines, start));
            }
        }
        return snippets;
    }
}
