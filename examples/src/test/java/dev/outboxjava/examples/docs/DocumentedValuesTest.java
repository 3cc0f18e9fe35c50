package dev.outboxjava.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.relayapp.ConfigKey;
import dev.outboxjava.relayapp.ConfigSource;
import dev.outboxjava.relayapp.OutboxCli;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.worker.InvalidSettingsException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * What the documentation tells a user to type works as written: every value it gives a setting of the
 * relay application ({@code OUTBOX_X=value} or {@code outbox.x=value}, in prose, commands, the Dockerfile and
 * the Kubernetes sample) is accepted without a warning, every {@code outbox-worker <command>} is a command of
 * the jar, and every jar file it names is one the build produces.
 */
@DisplayName("The values, commands and file names in the documentation")
class DocumentedValuesTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().resolve("..").normalize();
    /** {@code OUTBOX_X=value} or {@code outbox.x.y=value}; the value stops at what ends it in prose or code. */
    private static final Pattern ASSIGNMENT =
            Pattern.compile("\\b(OUTBOX_[A-Z0-9_]+|outbox\\.[a-z0-9_.-]+[a-z0-9])=([^\\s`|),;\"'\\[]*)");
    /** A ConfigMap entry of the sample: {@code OUTBOX_X: value}. */
    private static final Pattern YAML_ENTRY = Pattern.compile("^\\s+(OUTBOX_[A-Z0-9_]+):\\s*(\\S+)\\s*$");
    /** The jar's name for itself (its help) and the image's: {@code outbox-worker status}, {@code ….jar run}. */
    private static final Pattern COMMAND =
            Pattern.compile("(?:\\boutbox-worker(?::[0-9][0-9.]*)?|-all\\.jar) ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?");

    /** {@code <groupId>dev.outboxjava</groupId> <artifactId>x</artifactId> <version>v</version>} in a snippet. */
    private static final Pattern SNIPPET_VERSION = Pattern.compile(
            "<groupId>dev\\.outboxjava</groupId>\\s*<artifactId>([a-z-]+)</artifactId>\\s*<version>([^<]+)</version>");

    /** Words that follow the module's name in prose, where no command is meant. */
    private static final Set<String> PROSE = Set.of("and", "or", "only", "module", "modules", "jar", "image", "is");

    private static final Pattern JAR = Pattern.compile("[A-Za-z0-9_./<>*{}$-]+\\.jar\\b");
    /** The files a user can find: the runnable jar (any version), the jar inside the image, the benchmarks. */
    private static final List<Pattern> JARS_THE_BUILD_MAKES = List.of(
            Pattern.compile("(outbox-relay-app/target/)?outbox-relay-app-(\\*|<version>)-all\\.jar"),
            Pattern.compile("/opt/outbox/outbox-worker\\.jar"),
            Pattern.compile("/src/outbox-worker\\.jar"),
            Pattern.compile("benchmarks/target/outbox-benchmarks\\.jar"));

    @Test
    @DisplayName("every value given to a relay-application setting loads without a problem or a warning")
    void settingValuesLoad() {
        Set<String> properties =
                Arrays.stream(ConfigKey.values()).map(ConfigKey::property).collect(Collectors.toSet());
        List<String> refused = new ArrayList<>();
        for (Path page : pages()) {
            // outbox.* there are the Spring Boot starter's properties, checked by its own tests
            boolean starterPage = page.endsWith("spring-boot.md");
            for (Map.Entry<String, String> assignment : assignments(page)) {
                String key = assignment.getKey();
                boolean env = key.startsWith(ConfigKey.ENV_PREFIX);
                if (key.startsWith(ConfigKey.RESERVED_ENV_PREFIX)
                        || !env && (starterPage || !properties.contains(key) && !passThrough(key))) {
                    continue;
                }
                refused.addAll(refusal(ROOT.relativize(page), key, assignment.getValue()));
            }
        }
        assertThat(refused)
                .as("documented values the relay application refuses or warns about")
                .isEmpty();
    }

    @Test
    @DisplayName("given the older wake-up spellings, then the check reports their warning")
    void olderSpellingsAreReported() {
        assertThat(refusal(Path.of("page.md"), "OUTBOX_RELAY_WAKEUP", "polling"))
                .singleElement()
                .asString()
                .contains("older spelling");
        assertThat(refusal(Path.of("page.md"), "outbox.relay.wakeup", "listen"))
                .singleElement()
                .asString()
                .contains("must be one of");
    }

    @Test
    @DisplayName(
            "every 'outbox-worker <command>' is a command (and sub-command) of the jar, whose help says outbox-worker")
    void commandsExist() {
        CommandLine cli = new CommandLine(new OutboxCli());
        assertThat(cli.getCommandName()).isEqualTo("outbox-worker");
        List<String> unknown = new ArrayList<>();
        for (Path page : pages()) {
            Matcher matcher = COMMAND.matcher(read(page));
            while (matcher.find()) {
                CommandLine command = cli.getSubcommands().get(matcher.group(1));
                if (command == null) {
                    if (!PROSE.contains(matcher.group(1))) { // "outbox-worker and …", "… outbox-worker only"
                        unknown.add(ROOT.relativize(page) + ": " + matcher.group());
                    }
                } else if (matcher.group(2) != null
                        && !command.getSubcommands().isEmpty()
                        && !command.getSubcommands().containsKey(matcher.group(2))) {
                    unknown.add(ROOT.relativize(page) + ": " + matcher.group());
                }
            }
        }
        assertThat(unknown).as("commands the jar does not have").isEmpty();
    }

    @Test
    @DisplayName(
            "every jar file named in the docs, the NOTICE and the Dockerfile is one the build makes, of any version")
    void jarNamesExist() {
        List<String> unknown = new ArrayList<>();
        List<Path> files = new ArrayList<>(pages());
        files.add(ROOT.resolve("NOTICE"));
        for (Path file : files) {
            Matcher matcher = JAR.matcher(read(file));
            while (matcher.find()) {
                String name = matcher.group();
                if (JARS_THE_BUILD_MAKES.stream().noneMatch(p -> p.matcher(name).matches())) {
                    unknown.add(ROOT.relativize(file) + ": " + name);
                }
            }
        }
        assertThat(unknown)
                .as("jar names the build does not produce (a literal version goes stale: write * or <version>)")
                .isEmpty();
    }

    @Test
    @DisplayName("every dependency snippet of ours names the version being built, without -SNAPSHOT")
    void snippetsNameTheReleaseVersion() throws IOException {
        String version = System.getProperty("outbox.project.version", "").replace("-SNAPSHOT", "");
        assertThat(version).as("the project version (set by the build)").isNotEmpty();
        List<Path> files = new ArrayList<>(pages());
        try (Stream<Path> readmes = Files.list(ROOT)) {
            readmes.map(module -> module.resolve("README.md"))
                    .filter(Files::isRegularFile)
                    .forEach(files::add);
        }
        List<String> stale = new ArrayList<>();
        for (Path file : files) {
            Matcher matcher = SNIPPET_VERSION.matcher(read(file));
            while (matcher.find()) {
                if (!matcher.group(2).equals(version)) {
                    stale.add(ROOT.relativize(file) + ": " + matcher.group(1) + " " + matcher.group(2));
                }
            }
        }
        assertThat(stale).as("dependency snippets not at " + version).isEmpty();
    }

    /** The problems and warnings of loading just {@code key=value}, one line each. */
    static List<String> refusal(Path page, String key, String value) {
        if (value.isEmpty() || value.contains("...") || value.contains("…") || value.startsWith("<")) {
            return List.of(); // a placeholder
        }
        String given = value.replaceAll("[.:]$", ""); // the end of a sentence
        boolean env = key.startsWith(ConfigKey.ENV_PREFIX);
        Map<String, String> one = new HashMap<>(Map.of(key, given));
        // a broker is only accepted with its address, which pages give on the next line or not at all
        if (key.equals(env ? ConfigKey.BROKER.env() : ConfigKey.BROKER.property())) {
            ConfigKey address = given.equals("rabbitmq") ? ConfigKey.RABBITMQ_URI : ConfigKey.KAFKA_BOOTSTRAP_SERVERS;
            one.put(
                    env ? address.env() : address.property(),
                    given.equals("rabbitmq") ? "amqp://127.0.0.1:5672" : "127.0.0.1:9092");
        }
        try {
            RelayAppConfig settings = RelayAppConfig.load(env ? ConfigSource.environment(one) : ConfigSource.map(one));
            return settings.warnings().stream()
                    .map(warning -> page + ": " + key + "=" + given + ": " + warning)
                    .toList();
        } catch (InvalidSettingsException e) {
            return List.of(page + ": " + key + "=" + given + ": " + e.getMessage());
        }
    }

    private static boolean passThrough(String key) {
        return ConfigKey.PASS_THROUGH_PREFIXES.stream().anyMatch(key::startsWith);
    }

    private static List<Map.Entry<String, String>> assignments(Path page) {
        List<Map.Entry<String, String>> found = new ArrayList<>();
        for (String line : read(page).lines().toList()) {
            Matcher matcher = ASSIGNMENT.matcher(line);
            while (matcher.find()) {
                found.add(Map.entry(matcher.group(1), matcher.group(2)));
            }
            if (page.toString().endsWith(".yaml")) {
                Matcher entry = YAML_ENTRY.matcher(line);
                if (entry.matches()) {
                    found.add(Map.entry(entry.group(1), entry.group(2)));
                }
            }
        }
        return found;
    }

    /** The pages a user reads for settings and commands: README, docs/, the Dockerfile, the deploy samples. */
    private static List<Path> pages() {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        pages.add(ROOT.resolve("Dockerfile"));
        for (String directory : List.of("docs", "deploy")) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(directory))) {
                files.filter(file -> file.toString().endsWith(".md")
                                || file.toString().endsWith(".yaml")
                                || file.toString().endsWith(".yml"))
                        .sorted()
                        .forEach(pages::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return pages;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
