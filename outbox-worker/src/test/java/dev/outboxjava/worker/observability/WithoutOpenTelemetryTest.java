package dev.outboxjava.worker.observability;

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
import org.junit.jupiter.api.Test;

/**
 * OpenTelemetry is optional: with every {@code io.opentelemetry} jar removed from the class path, the
 * writer's and the relay's tracing code paths step aside and a worker publishes as before.
 */
@DisplayName("Without OpenTelemetry on the class path")
class WithoutOpenTelemetryTest {

    @Test
    @DisplayName("the tracing paths step aside and the worker still publishes")
    @SuppressWarnings("unchecked")
    void nothingChangesNothingBreaks() throws Exception {
        List<URL> urls = classPathWithout("opentelemetry");
        assertThat(urls).isNotEmpty();
        try (URLClassLoader loader =
                new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Callable<List<String>> scenario =
                    (Callable<List<String>>) loader.loadClass(NoOpenTelemetryScenario.class.getName())
                            .getDeclaredConstructor()
                            .newInstance();
            assertThat(scenario.call())
                    .containsExactly(
                            "otel classes visible: false",
                            "writer sees otel: false",
                            "relay sees otel: false",
                            "events unchanged: true",
                            "publisher unwrapped: true",
                            "published by the worker: 10");
        }
    }

    /** This JVM's class path (expanding a manifest-only booter jar, as Surefire uses) minus matching entries. */
    private static List<URL> classPathWithout(String excluded) throws Exception {
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
        return urls.stream().filter(u -> !u.toString().contains(excluded)).toList();
    }
}
