package dev.outboxjava.examples.datasource;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A service on its own DataSource")
class DataSourceServiceIT {

    @Test
    @DisplayName(
            "appends and relays an event with headers on exactly its run-time class path: no Guice, HikariCP or Jackson")
    void runsWithoutTheOptionalLibraries() throws Exception {
        PostgresFixture postgres = PostgresFixture.shared();
        List<Path> classpath = new ArrayList<>();
        classpath.add(Path.of(System.getProperty("outbox.service.classes")));
        classpath.addAll(RuntimeDependencies.jars());
        assertThat(RuntimeDependencies.named(classpath, RuntimeDependenciesTest.NOT_NEEDED))
                .isEmpty();
        Path output = Files.createTempFile("outbox-datasource-service-", ".log");

        Process service = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        classpath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)),
                        DataSourceService.class.getName(),
                        postgres.jdbcUrl(),
                        postgres.user(),
                        postgres.password())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        boolean exited = service.waitFor(2, TimeUnit.MINUTES);
        if (!exited) {
            service.destroyForcibly();
        }

        String log = Files.readString(output);
        assertThat(exited).as("exited; output:\n%s", log).isTrue();
        assertThat(service.exitValue()).as("exit code; output:\n%s", log).isZero();
        assertThat(log).contains("published with headers").contains("tenant");
    }
}
