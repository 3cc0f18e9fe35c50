package dev.outboxjava.examples.datasource;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** The service's run-time class path as Maven resolves it for a user (written by maven-dependency-plugin). */
final class RuntimeDependencies {

    private RuntimeDependencies() {}

    static List<Path> jars() throws IOException {
        String file = System.getProperty("outbox.runtime.classpath");
        if (file == null) {
            throw new IllegalStateException("outbox.runtime.classpath is not set: run the test with Maven");
        }
        return Arrays.stream(Files.readString(Path.of(file)).strip().split(File.pathSeparator))
                .filter(entry -> !entry.isBlank())
                .map(Path::of)
                .toList();
    }

    /** The jars whose file names start with one of {@code prefixes}. */
    static List<String> named(List<Path> jars, List<String> prefixes) {
        return jars.stream()
                .map(jar -> jar.getFileName().toString())
                .filter(name -> prefixes.stream().anyMatch(name::startsWith))
                .toList();
    }
}
