package dev.outboxjava.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.console.OutboxConsole;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.rabbitmq.RabbitMqPublisher;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.spring.boot.SpringOutbox;
import dev.outboxjava.testkit.OutboxAssertions;
import dev.outboxjava.testkit.fixture.ServiceConfig;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import dev.outboxjava.worker.OutboxWorker;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every published jar carries an {@code Automatic-Module-Name}, so a JPMS application can
 * {@code requires} it by a stable name. Run on the packaged jars (the integration-test phase sees the
 * reactor's jars; the test phase would see class folders without a manifest).
 */
@DisplayName("Every published jar")
class AutomaticModuleNamesIT {

    private static final Path ROOT = Path.of("").toAbsolutePath().resolve("..").normalize();

    /** One class of each published jar module, and the module name its manifest must carry. */
    private static final Map<String, Class<?>> MEMBER = Map.ofEntries(
            Map.entry("outbox-core", OutboxEvent.class),
            Map.entry("outbox-postgres", PostgresOutboxStore.class),
            Map.entry("outbox-broker-kafka", KafkaPublisher.class),
            Map.entry("outbox-broker-rabbitmq", RabbitMqPublisher.class),
            Map.entry("outbox-worker", OutboxWorker.class),
            Map.entry("outbox-relay-app", RelayAppConfig.class),
            Map.entry("outbox-console", OutboxConsole.class),
            Map.entry("outbox-testkit", OutboxAssertions.class),
            Map.entry("outbox-testkit-fixtures", ServiceConfig.class),
            Map.entry("outbox-testkit-postgres", PostgresFixture.class),
            Map.entry("outbox-testkit-kafka", KafkaFixture.class),
            Map.entry("outbox-testkit-rabbitmq", RabbitMqFixture.class),
            Map.entry("outbox-spring-boot-autoconfigure", SpringOutbox.class),
            Map.entry("outbox-spring-boot-test", dev.outboxjava.spring.boot.test.OutboxServices.class));

    /** Published jars without a class of their own: found in their module's build folder. */
    private static final Set<String> WITHOUT_CLASSES = Set.of("outbox-spring-boot-starter");

    private static final Map<String, String> NAME = Map.ofEntries(
            Map.entry("outbox-core", "dev.outboxjava.core"),
            Map.entry("outbox-postgres", "dev.outboxjava.postgres"),
            Map.entry("outbox-broker-kafka", "dev.outboxjava.kafka"),
            Map.entry("outbox-broker-rabbitmq", "dev.outboxjava.rabbitmq"),
            Map.entry("outbox-worker", "dev.outboxjava.worker"),
            Map.entry("outbox-relay-app", "dev.outboxjava.relayapp"),
            Map.entry("outbox-console", "dev.outboxjava.console"),
            Map.entry("outbox-testkit", "dev.outboxjava.testkit"),
            Map.entry("outbox-testkit-fixtures", "dev.outboxjava.testkit.fixtures"),
            Map.entry("outbox-testkit-postgres", "dev.outboxjava.testkit.postgres"),
            Map.entry("outbox-testkit-kafka", "dev.outboxjava.testkit.kafka"),
            Map.entry("outbox-testkit-rabbitmq", "dev.outboxjava.testkit.rabbitmq"),
            Map.entry("outbox-spring-boot-autoconfigure", "dev.outboxjava.spring.boot"),
            Map.entry("outbox-spring-boot-starter", "dev.outboxjava.spring.boot.starter"),
            Map.entry("outbox-spring-boot-test", "dev.outboxjava.spring.boot.test"));

    @Test
    @DisplayName("is covered here: the BOM lists no jar module this test does not check")
    void everyBomEntryIsChecked() throws Exception {
        Set<String> jars = new LinkedHashSet<>(bomArtifacts());
        jars.remove("outbox-bom");
        Set<String> checked = new LinkedHashSet<>(MEMBER.keySet());
        checked.addAll(WITHOUT_CLASSES);
        assertThat(checked).as("modules checked here").containsExactlyInAnyOrderElementsOf(jars);
    }

    @Test
    @DisplayName("carries its Automatic-Module-Name")
    void carriesItsModuleName() throws Exception {
        for (Map.Entry<String, Class<?>> module : MEMBER.entrySet()) {
            Path jar = Path.of(module.getValue()
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            assertThat(jar.getFileName().toString())
                    .as(module.getKey() + " comes from its jar")
                    .startsWith(module.getKey() + "-")
                    .endsWith(".jar");
            assertModuleName(module.getKey(), jar);
        }
        for (String module : WITHOUT_CLASSES) {
            assertModuleName(module, builtJar(module));
        }
    }

    @Test
    @DisplayName("resolves with every other published jar on one module path: no package is in two jars")
    void resolvesTogetherOnAModulePath() throws Exception {
        List<Path> jars = new ArrayList<>();
        for (Class<?> member : MEMBER.values()) {
            jars.add(Path.of(
                    member.getProtectionDomain().getCodeSource().getLocation().toURI()));
        }
        for (String module : WITHOUT_CLASSES) {
            jars.add(builtJar(module));
        }

        ModuleLayer layer = modulePath(jars);

        assertThat(layer.modules().stream().map(Module::getName)).containsExactlyInAnyOrderElementsOf(NAME.values());
    }

    @Test
    @DisplayName("given two jars with one package, when resolved together, then the module path refuses them")
    void splitPackageIsRefused(@TempDir Path directory) throws Exception {
        Path first = jarWith(directory.resolve("first.jar"), "dev/outboxjava/split/A.class", "first.module");
        Path second = jarWith(directory.resolve("second.jar"), "dev/outboxjava/split/B.class", "second.module");

        assertThatThrownBy(() -> modulePath(List.of(first, second))).hasMessageContaining("dev.outboxjava.split");
    }

    /**
     * The jars as automatic modules, resolved together and defined in one layer with one class loader, as
     * {@code java --module-path … --add-modules ALL-MODULE-PATH} does. Automatic modules read each other, so
     * a package in two jars fails the resolution.
     */
    private static ModuleLayer modulePath(List<Path> jars) {
        ModuleFinder finder = ModuleFinder.of(jars.toArray(Path[]::new));
        Set<String> names = new LinkedHashSet<>();
        finder.findAll().forEach(reference -> names.add(reference.descriptor().name()));
        Configuration configuration = ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(), names);
        return ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
    }

    /** A jar holding one (empty) class file under {@code entry}, named {@code module} by its manifest. */
    private static Path jarWith(Path jar, String entry, String module) throws Exception {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Automatic-Module-Name", module);
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            out.putNextEntry(new JarEntry(entry));
            out.closeEntry();
        }
        return jar;
    }

    private static void assertModuleName(String module, Path jar) {
        ModuleReference reference = ModuleFinder.of(jar).findAll().iterator().next();
        assertThat(reference.descriptor().isAutomatic()).isTrue();
        // without the manifest entry, the JDK derives the name from the file name: "outbox.core"
        assertThat(reference.descriptor().name()).as(module).isEqualTo(NAME.get(module));
    }

    /**
     * The module's main jar in its build folder (outbox-it depends on it, so the reactor has built it), whose
     * name ({@code -Doutbox.target}) is read off the core's jar.
     */
    private static Path builtJar(String module) throws Exception {
        Path coreJar = Path.of(OutboxEvent.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Path target = ROOT.resolve(module).resolve(coreJar.getParent().getFileName());
        try (var files = Files.list(target)) {
            return files.filter(file ->
                            file.getFileName().toString().matches(Pattern.quote(module) + "-[^-]+(-SNAPSHOT)?\\.jar"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no jar of " + module + " in " + target));
        }
    }

    private static List<String> bomArtifacts() throws Exception {
        String bom = Files.readString(ROOT.resolve("outbox-bom/pom.xml"));
        Matcher artifact =
                Pattern.compile("<artifactId>(outbox-[a-z-]+)</artifactId>").matcher(bom);
        List<String> found = new ArrayList<>();
        while (artifact.find()) {
            found.add(artifact.group(1));
        }
        return found;
    }
}
