package dev.outboxjava.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the docs honest: every {@code ```java} block of the top-level README, of the pages under
 * {@code docs/} and of {@code examples/README.md} must appear, line for line (indentation aside), inside a
 * tagged region ({@code // tag::name[]} ... {@code // end::name[]}) of a source of the repository's modules
 * (the examples' mostly), which the build compiles and the tests run. Edit the source, then copy the region
 * into the page.
 */
@DisplayName("The README")
class ReadmeSnippetsTest {

    private static final Path MODULE = Path.of("").toAbsolutePath();
    private static final Path TOP_README = MODULE.resolve("../README.md").normalize();
    private static final Path DOCS_DIRECTORY = MODULE.resolve("../docs").normalize();
    private static final Pattern TAG = Pattern.compile("^\\s*//\\s*tag::([\\w.-]+)\\[]\\s*$");
    private static final Pattern END = Pattern.compile("^\\s*//\\s*end::([\\w.-]+)\\[]\\s*$");
    private static final Pattern FENCE = Pattern.compile("^\\s*```\\s*(\\w*)\\s*$");

    @Test
    @DisplayName("shows only Java that is a tagged region of a compiled example source")
    void javaSnippetsComeFromCompiledSources() {
        Map<String, List<String>> regions = taggedRegions();
        assertThat(regions).as("tagged regions in the modules' sources").isNotEmpty();
        List<Path> docs = documents();
        assertThat(docs.stream().mapToInt(doc -> blocks(doc, "java").size()).sum())
                .as("java blocks in " + docs)
                .isPositive();

        assertThat(unmatchedJavaBlocks(docs, regions))
                .as("README java blocks that no compiled source contains")
                .isEmpty();
    }

    @Test
    @DisplayName(
            "check reports a Java block that differs from its source, and accepts one that differs only in indentation"
                    + " or line breaks")
    void checkCatchesDrift(@TempDir Path directory) throws IOException {
        Path doc = directory.resolve("README.md");
        Files.writeString(
                doc,
                String.join(
                        "\n",
                        "```java",
                        "int a = 1;",
                        "    int b = 2;",
                        "```",
                        "```java",
                        "int a = 1;",
                        "int b = 3;",
                        "```",
                        "```java",
                        "int a = 1; int b",
                        "= 2;",
                        "```",
                        ""));
        Map<String, List<String>> regions =
                Map.of("Example.java#snippet", List.of("        int a = 1;", "        int b = 2;"));

        List<String> unmatched = unmatchedJavaBlocks(List.of(doc), regions);

        assertThat(unmatched).hasSize(1);
        assertThat(unmatched.get(0)).contains("README.md:5").contains("int b = 3;");
    }

    private static List<String> unmatchedJavaBlocks(List<Path> docs, Map<String, List<String>> regions) {
        List<String> problems = new ArrayList<>();
        for (Path doc : docs) {
            for (Block block : blocks(doc, "java")) {
                List<String> wanted = normalized(block.lines());
                boolean found = regions.values().stream().anyMatch(region -> containsRun(normalized(region), wanted));
                if (!found) {
                    problems.add(MODULE.resolve("..").normalize().relativize(doc) + ":" + block.line()
                            + " is in no tagged region of "
                            + "the modules' sources (regions: " + String.join(", ", regions.keySet()) + "):\n"
                            + String.join("\n", block.lines()));
                }
            }
        }
        return problems;
    }

    @Test
    @DisplayName("names only Maven artifacts that are modules of this build")
    void coordinatesNameRealModules() {
        Pattern artifact = Pattern.compile("<groupId>dev\\.outboxjava</groupId>\\s*<artifactId>([\\w-]+)</artifactId>");
        List<String> missing = new ArrayList<>();
        for (Block block :
                documents().stream().flatMap(doc -> blocks(doc, "xml").stream()).toList()) {
            Matcher matcher = artifact.matcher(String.join("\n", block.lines()));
            while (matcher.find()) {
                if (!Files.isDirectory(MODULE.resolve("..").resolve(matcher.group(1)))) {
                    missing.add(matcher.group(1));
                }
            }
        }
        assertThat(missing).as("artifactIds in the README that are not modules").isEmpty();
    }

    /** The top-level README, every page at the top of docs/ and this module's README. */
    private static List<Path> documents() {
        List<Path> docs = new ArrayList<>(List.of(TOP_README, MODULE.resolve("README.md")));
        try (Stream<Path> pages = Files.list(DOCS_DIRECTORY)) {
            pages.filter(page -> page.toString().endsWith(".md")).sorted().forEach(docs::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return docs;
    }

    private record Block(int line, List<String> lines) {}

    /** Fenced blocks of the given language, with the line number of their opening fence. */
    private static List<Block> blocks(Path doc, String language) {
        List<String> lines = read(doc).lines().toList();
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            int start = i;
            List<String> body = new ArrayList<>();
            for (i++; i < lines.size() && !FENCE.matcher(lines.get(i)).matches(); i++) {
                body.add(lines.get(i));
            }
            if (open.group(1).equals(language)) {
                blocks.add(new Block(start + 1, body));
            }
        }
        return blocks;
    }

    /** Every tagged region of the modules' sources ({@code <module>/src/**}), by "file#tag". */
    private static Map<String, List<String>> taggedRegions() {
        Map<String, List<String>> regions = new LinkedHashMap<>();
        Path root = MODULE.resolve("..").normalize();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(path -> path.toString().endsWith(".java"))
                    .filter(path ->
                            root.relativize(path).toString().replace('\\', '/').matches("[^/]+/src/.*"))
                    .toList()) {
                Map<String, List<String>> open = new LinkedHashMap<>();
                for (String line : read(file).lines().toList()) {
                    Matcher end = END.matcher(line);
                    if (end.find() && open.containsKey(end.group(1))) {
                        regions.put(file.getFileName() + "#" + end.group(1), open.remove(end.group(1)));
                        continue;
                    }
                    Matcher tag = TAG.matcher(line);
                    if (tag.find()) {
                        open.put(tag.group(1), new ArrayList<>());
                        continue;
                    }
                    open.values().forEach(region -> region.add(line));
                }
                assertThat(open.keySet()).as("tags without an end in " + file).isEmpty();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return regions;
    }

    /** Lines without indentation and trailing blanks; empty lines dropped. */
    private static List<String> normalized(List<String> lines) {
        return lines.stream().map(String::strip).filter(line -> !line.isEmpty()).collect(Collectors.toList());
    }

    /**
     * Whether the needle's code stands, contiguous, in the haystack's, whatever the line breaks and
     * indentation: the formatter may wrap a call that the document shows on one line.
     */
    private static boolean containsRun(List<String> haystack, List<String> needle) {
        return withoutWhitespace(haystack).contains(withoutWhitespace(needle));
    }

    private static String withoutWhitespace(List<String> lines) {
        return String.join("", lines).replaceAll("\\s+", "");
    }

    private static String read(Path path) {
        try {
            return Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }
}
