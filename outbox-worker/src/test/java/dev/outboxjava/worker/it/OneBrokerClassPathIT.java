package dev.outboxjava.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.jar.JarFile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A service embeds the worker with the one broker module it relays to: with the other broker's client
 * and adapter removed from the class path, the worker runs on a plain {@code PGSimpleDataSource} (no
 * pool) and the service's {@code SimpleMeterRegistry}, and relays to real PostgreSQL and the broker.
 */
@DisplayName("An embedded worker with one broker on the class path")
class OneBrokerClassPathIT {

    @ParameterizedTest(name = "{0} without {1}")
    @CsvSource({"kafka, amqp-client|outbox-broker-rabbitmq|qpid", "rabbitmq, kafka"})
    @DisplayName("relays on the service's data source and registry")
    @SuppressWarnings("unchecked")
    void relaysWithOneBroker(String broker, String excluded) throws Exception {
        List<URL> urls = classPathWithout(excluded.split("\\|"));
        String previous = System.setProperty("outbox.it.broker", broker);
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader loader =
                new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Callable<List<String>> scenario =
                    (Callable<List<String>>) loader.loadClass(OneBrokerScenario.class.getName())
                            .getDeclaredConstructor()
                            .newInstance();
            // service loaders (Testcontainers', the drivers') look in the context class loader
            Thread.currentThread().setContextClassLoader(loader);
            assertThat(scenario.call())
                    .containsExactly(
                            "amqp-client visible: " + broker.equals("rabbitmq"),
                            "kafka-clients visible: " + broker.equals("kafka"),
                            "worker's registry is the service's: true",
                            "published, counted in the service's registry: 20",
                            "received: 20");
        } finally {
            Thread.currentThread().setContextClassLoader(context);
            if (previous == null) {
                System.clearProperty("outbox.it.broker");
            } else {
                System.setProperty("outbox.it.broker", previous);
            }
        }
    }

    /** This JVM's class path (expanding a manifest-only booter jar) minus the entries naming any of {@code excluded}. */
    private static List<URL> classPathWithout(String... excluded) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry);
            URL url = path.toUri().toURL();
            String manifestClassPath = null;
            if (entry.endsWith(".jar") && path.getFileName().toString().startsWith("surefire")) {
                try (JarFile jar = new JarFile(path.toFile())) {
                    manifestClassPath = jar.getManifest() == null
                            ? null
                            : jar.getManifest().getMainAttributes().getValue("Class-Path");
                }
            }
            if (manifestClassPath == null) {
                urls.add(url);
            } else {
                for (String relative : manifestClassPath.trim().split("\\s+")) {
                    urls.add(new URL(url, relative));
                }
            }
        }
        return urls.stream()
                .filter(u -> List.of(excluded).stream().noneMatch(u.toString()::contains))
                .toList();
    }
}
