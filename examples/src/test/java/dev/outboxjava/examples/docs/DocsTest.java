package dev.outboxjava.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.relayapp.ConfigKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation's shape: a README that fits a screen or two, a reference under {@code docs/} reachable from
 * it, links that lead somewhere, and a runbook entry for every alert the worker ships.
 */
@DisplayName("The documentation")
class DocsTest {

    static final int README_MAX_LINES = 200;
    private static final Path ROOT = Path.of("").toAbsolutePath().resolve("..").normalize();
    private static final Path README = ROOT.resolve("README.md");
    private static final Path DOCS = ROOT.resolve("docs");
    private static final Path ALERTS =
            ROOT.resolve("outbox-worker/src/main/resources/dashboards/prometheus-alerts.yml");
    /** Inline links {@code [text](target)}; images and reference-style links are not used in these pages. */
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)\\)");

    private static final Pattern FENCE = Pattern.compile("^\\s*```.*$");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern ALERT = Pattern.compile("^\\s*-\\s*alert:\\s*(\\w+)\\s*$");
    /** A setting or meter named in the text: {@code `outbox.relay.batch.size`}, {@code `outbox.events.held`}. */
    private static final Pattern OUTBOX_NAME = Pattern.compile("`(outbox\\.[a-z0-9_-]+(?:\\.[a-z0-9_-]+)*)");
    /**
     * The Spring Boot starter's {@code outbox.*} properties (kebab-case): the table of docs/spring-boot.md,
     * which outbox-spring-boot-autoconfigure's PropertiesPageTest keeps equal to the generated metadata.
     */
    private static final Pattern STARTER_PROPERTY =
            Pattern.compile("^\\| `(outbox\\.[a-z0-9.-]+)` \\|", Pattern.MULTILINE);

    private static final Pattern ENV_NAME = Pattern.compile("\\b(OUTBOX_[A-Z0-9_]+)");
    private static final Pattern STRING_LITERAL = Pattern.compile("\"(outbox\\.[a-z0-9_.]+)\"");

    @Test
    @DisplayName("README.md has at most 200 lines")
    void readmeIsShort() {
        assertThat(read(README).lines().count()).as("lines of README.md").isLessThanOrEqualTo(README_MAX_LINES);
    }

    @Test
    @DisplayName("every relative link of README.md and docs/*.md leads to an existing file (and heading)")
    void relativeLinksResolve() {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            broken.addAll(brokenLinks(page));
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    @DisplayName("every page of docs/ is one click from docs/README.md, which is one click from README.md")
    void everyPageIsWithinTwoClicksOfTheReadme() {
        assertThat(linkedFiles(README)).as("pages README.md links to").contains(DOCS.resolve("README.md"));
        Set<Path> fromIndex = linkedFiles(DOCS.resolve("README.md"));
        List<Path> unlisted = docsPages().stream()
                .filter(page -> !page.equals(DOCS.resolve("README.md")) && !fromIndex.contains(page))
                .toList();
        assertThat(unlisted)
                .as("docs pages the index docs/README.md does not link to")
                .isEmpty();
    }

    @Test
    @DisplayName("docs/operations.md has a runbook section for every shipped Prometheus alert")
    void everyAlertHasARunbook() {
        List<String> alerts = read(ALERTS)
                .lines()
                .map(ALERT::matcher)
                .filter(Matcher::matches)
                .map(matcher -> matcher.group(1))
                .toList();
        assertThat(alerts).as("alerts in " + ROOT.relativize(ALERTS)).isNotEmpty();
        Set<String> headings = headings(read(DOCS.resolve("operations.md")));

        List<String> missing = alerts.stream()
                .filter(alert -> !headings.contains(anchor(alert)))
                .toList();
        assertThat(missing)
                .as("alerts without a '### <name>' runbook section in docs/operations.md")
                .isEmpty();
        for (String alert : alerts) {
            String section = section(read(DOCS.resolve("operations.md")), alert);
            assertThat(section)
                    .as("runbook of " + alert)
                    .contains("**Means**")
                    .contains("**Confirm**")
                    .contains("**Do**");
        }
    }

    @Test
    @DisplayName("names only settings, environment variables and meters that the code defines")
    void namesExist() {
        Set<String> known = new LinkedHashSet<>(outboxNamesInSources());
        Matcher starter = STARTER_PROPERTY.matcher(read(ROOT.resolve("docs/spring-boot.md")));
        while (starter.find()) {
            known.add(starter.group(1));
        }
        Set<String> env = new LinkedHashSet<>();
        Arrays.stream(ConfigKey.values()).forEach(key -> {
            known.add(key.property());
            env.add(key.env());
        });
        List<String> unknown = new ArrayList<>();
        for (Path page : pages()) {
            unknown.addAll(unknownNames(page, read(page), known, env));
        }
        assertThat(unknown)
                .as("names in the docs that no ConfigKey or main source defines")
                .isEmpty();
    }

    @Test
    @DisplayName("every table row of README.md and docs/*.md has as many cells as its header")
    void tablesAreWellFormed() {
        List<String> problems = new ArrayList<>();
        for (Path page : pages()) {
            problems.addAll(malformedRows(page, read(page)));
        }
        assertThat(problems)
                .as("table rows whose cell count differs from their header's (an unescaped |?)")
                .isEmpty();
    }

    @Test
    @DisplayName("given a row with an unescaped | in a cell, then the table check reports it")
    void reportsMalformedRows() {
        String page =
                String.join("\n", "| a | b |", "|---|---|", "| 1 | 2 |", "| `x | y` | 3 |", "| `x \\| y` | 3 |", "");

        assertThat(malformedRows(Path.of("page.md"), page)).containsExactly("page.md:4");
    }

    static List<String> malformedRows(Path page, String markdown) {
        List<String> problems = new ArrayList<>();
        List<String> lines = markdown.lines().toList();
        boolean inCode = false;
        int expected = -1;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (FENCE.matcher(line).matches()) {
                inCode = !inCode;
                continue;
            }
            if (inCode || !line.startsWith("|")) {
                expected = -1;
                continue;
            }
            if (expected < 0) {
                boolean header = i + 1 < lines.size() && lines.get(i + 1).matches("^\\|[-| :]+\\|\\s*$");
                expected = header ? cells(line) : -1;
                continue;
            }
            if (cells(line) != expected) {
                problems.add(page.getFileName() + ":" + (i + 1));
            }
        }
        return problems;
    }

    private static int cells(String row) {
        return row.strip().split("(?<!\\\\)\\|", -1).length;
    }

    @Nested
    @DisplayName("the link check")
    class LinkCheck {

        @Test
        @DisplayName("given a link to a missing file or heading, then it reports that link with its line")
        void reportsBrokenLinks(@TempDir Path directory) throws IOException {
            Files.writeString(directory.resolve("other.md"), "# Other\n\n## A heading, with `code`\n");
            Path page = directory.resolve("page.md");
            Files.writeString(
                    page,
                    String.join(
                            "\n",
                            "# Page",
                            "[ok](other.md) [ok too](other.md#a-heading-with-code) [self](#page)",
                            "[web](https://example.com/missing.md) [mail](mailto:a@b.c)",
                            "```",
                            "[in code](nowhere.md)",
                            "```",
                            "[gone](missing.md)",
                            "[no heading](other.md#nope)",
                            ""));

            List<String> broken = brokenLinks(page);

            assertThat(broken).hasSize(2);
            assertThat(broken.get(0)).contains("page.md:7").contains("missing.md");
            assertThat(broken.get(1)).contains("page.md:8").contains("other.md#nope");
        }
    }

    @Test
    @DisplayName("given a page that names a setting and a variable the code lacks, then the name check reports both")
    void reportsUnknownNames() {
        List<String> unknown = unknownNames(
                Path.of("page.md"),
                "`outbox.relay.batch.size`, `outbox.relay.batch.count`, OUTBOX_RELAY_BATCH_SIZE, OUTBOX_RELAY_BATCH, "
                        + "OUTBOX_TEST_ANYTHING, `outbox.health.*`",
                Set.of("outbox.relay.batch.size"),
                Set.of("OUTBOX_RELAY_BATCH_SIZE"));

        assertThat(unknown).containsExactly("page.md: outbox.relay.batch.count", "page.md: OUTBOX_RELAY_BATCH");
    }

    static List<String> unknownNames(Path page, String text, Set<String> known, Set<String> env) {
        List<String> unknown = new ArrayList<>();
        Matcher name = OUTBOX_NAME.matcher(text);
        while (name.find()) {
            boolean wildcard = text.startsWith(".*", name.end());
            if (!wildcard && !known.contains(name.group(1)) && !passedToABrokerClient(name.group(1))) {
                unknown.add(page.getFileName() + ": " + name.group(1));
            }
        }
        Matcher variable = ENV_NAME.matcher(text);
        while (variable.find()) {
            String found = variable.group(1);
            if (!env.contains(found)
                    && !found.startsWith(ConfigKey.RESERVED_ENV_PREFIX)
                    && !passedToABrokerClient(found)) {
                unknown.add(page.getFileName() + ": " + found);
            }
        }
        return unknown;
    }

    /** {@code outbox.kafka.<property>}, {@code OUTBOX_RABBITMQ_<SETTING>}: settings handed to a broker client. */
    private static boolean passedToABrokerClient(String name) {
        return ConfigKey.PASS_THROUGH_PREFIXES.stream()
                .anyMatch(prefix -> name.startsWith(prefix)
                        || name.equals(prefix.substring(0, prefix.length() - 1))
                        || name.startsWith(prefix.toUpperCase(Locale.ROOT).replace('.', '_')));
    }

    /** Every {@code "outbox.…"} string literal of the modules' main sources: meter names, mostly. */
    private static Set<String> outboxNamesInSources() {
        Set<String> names = new LinkedHashSet<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(file -> file.toString().endsWith(".java"))
                    .filter(file ->
                            ROOT.relativize(file).toString().replace('\\', '/').matches("[^/]+/src/main/java/.*"))
                    .forEach(file -> {
                        Matcher literal = STRING_LITERAL.matcher(read(file));
                        while (literal.find()) {
                            names.add(literal.group(1));
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    static List<String> brokenLinks(Path page) {
        List<String> broken = new ArrayList<>();
        List<String> lines = read(page).lines().toList();
        boolean inCode = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (FENCE.matcher(line).matches()) {
                inCode = !inCode;
                continue;
            }
            if (inCode) {
                continue;
            }
            Matcher link = LINK.matcher(line.replaceAll("`[^`]*`", "``"));
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-zA-Z][a-zA-Z+.-]*:.*")) {
                    continue; // https:, mailto: — not a file of the repository
                }
                String problem = problem(page, target);
                if (problem != null) {
                    broken.add(page.getFileName() + ":" + (i + 1) + " " + target + ": " + problem);
                }
            }
        }
        return broken;
    }

    private static String problem(Path page, String target) {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
            return "no such file " + resolved;
        }
        if (fragment != null
                && resolved.toString().endsWith(".md")
                && !headings(read(resolved)).contains(fragment)) {
            return "no heading with anchor #" + fragment + " in " + resolved.getFileName();
        }
        return null;
    }

    /** GitHub's anchors of a page's headings (fenced code skipped). */
    static Set<String> headings(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        boolean inCode = false;
        for (String line : markdown.lines().toList()) {
            if (FENCE.matcher(line).matches()) {
                inCode = !inCode;
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (!inCode && heading.matches()) {
                anchors.add(anchor(heading.group(1)));
            }
        }
        return anchors;
    }

    /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces become hyphens. */
    static String anchor(String heading) {
        return heading.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N}\\s_-]", "")
                .trim()
                .replace(' ', '-');
    }

    /** The text of the section under the heading with this title, up to the next heading. */
    private static String section(String markdown, String title) {
        List<String> lines = markdown.lines().toList();
        StringBuilder text = new StringBuilder();
        boolean inside = false;
        for (String line : lines) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                if (inside) {
                    break;
                }
                inside = anchor(heading.group(1)).equals(anchor(title));
                continue;
            }
            if (inside) {
                text.append(line).append('\n');
            }
        }
        return text.toString();
    }

    private static Set<Path> linkedFiles(Path page) {
        Set<Path> files = new LinkedHashSet<>();
        Matcher link = LINK.matcher(read(page));
        while (link.find()) {
            String target = link.group(1).replaceFirst("#.*$", "");
            if (!target.isEmpty() && !target.matches("^[a-zA-Z][a-zA-Z+.-]*:.*")) {
                files.add(page.getParent().resolve(target).normalize());
            }
        }
        return files;
    }

    private static List<Path> pages() {
        List<Path> pages = new ArrayList<>(List.of(README));
        pages.addAll(docsPages());
        return pages;
    }

    /** The reference pages at the top of docs/ (design notes live in docs/design/). */
    private static List<Path> docsPages() {
        try (Stream<Path> files = Files.list(DOCS)) {
            return files.filter(file -> file.toString().endsWith(".md"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path path) {
        try {
            return Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }
}
