package dev.outboxjava.worker.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs Prometheus's {@code promtool} (Debian package {@code prometheus}; {@code .ci/run} installs it).
 * Without it a test is skipped on a developer's machine, and fails in CI (environment variable
 * {@code CI} set), so the alert and dashboard checks can never be skipped silently there.
 */
public final class Promtool {

    private Promtool() {}

    /** The executable on the PATH; skips (or, in CI, fails) the calling test when there is none. */
    public static Path require() {
        Optional<Path> found = Arrays.stream(
                        System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .filter(dir -> !dir.isBlank())
                .map(dir -> Path.of(dir, "promtool"))
                .filter(Files::isExecutable)
                .findFirst();
        if (found.isEmpty()) {
            String message = "promtool is not on the PATH: install it with 'apt-get install prometheus' "
                    + "(.ci/run does so when it is missing)";
            if (System.getenv("CI") != null) {
                fail(message + "; CI must run this test");
            }
            Assumptions.abort(message);
        }
        return found.get();
    }

    /** Copies a classpath resource into {@code dir} under its file name. */
    public static Path copyResource(String name, Path dir) throws IOException {
        try (InputStream in = Promtool.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name + " on the classpath").isNotNull();
            Path target = dir.resolve(Path.of(name).getFileName().toString());
            Files.copy(in, target);
            return target;
        }
    }

    /** {@code promtool test rules <file>} in the file's directory; fails the test with promtool's report. */
    public static String testRules(Path testFile) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(
                        require().toString(),
                        "test",
                        "rules",
                        testFile.getFileName().toString())
                .directory(testFile.getParent().toFile())
                .redirectErrorStream(true)
                .start();
        String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("promtool finished").isTrue();
        assertThat(process.exitValue())
                .as("promtool test rules " + testFile.getFileName() + ":\n" + output)
                .isZero();
        assertThat(output).contains("SUCCESS");
        return output;
    }
}
