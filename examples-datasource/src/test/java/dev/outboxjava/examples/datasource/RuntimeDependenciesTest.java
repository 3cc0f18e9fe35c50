package dev.outboxjava.examples.datasource;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A service on its own DataSource, with outbox-postgres and outbox-worker")
class RuntimeDependenciesTest {

    /** Guice (and the jakarta.inject API it brings), HikariCP, Jackson 2. */
    static final List<String> NOT_NEEDED =
            List.of("guice-", "jakarta.inject-api-", "HikariCP-", "jackson-databind-", "jackson-core-");

    @Test
    @DisplayName("resolves neither Guice, nor HikariCP, nor Jackson at run time")
    void resolvesNoneOfThem() throws Exception {
        List<Path> jars = RuntimeDependencies.jars();

        assertThat(RuntimeDependencies.named(jars, List.of("outbox-postgres-", "outbox-worker-", "postgresql-")))
                .as("the class path was resolved")
                .hasSize(3);
        assertThat(RuntimeDependencies.named(jars, NOT_NEEDED)).isEmpty();
    }
}
