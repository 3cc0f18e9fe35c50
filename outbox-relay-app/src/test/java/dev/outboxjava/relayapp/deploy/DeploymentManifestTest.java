package dev.outboxjava.relayapp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.relayapp.internal.HealthHttpServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * No container engine or cluster runs in CI, so the image is not built there: the Dockerfile and the
 * Kubernetes sample are read together and checked for what a kubelet would refuse or get wrong.
 */
@DisplayName("The Dockerfile and the Kubernetes sample, read together")
class DeploymentManifestTest {

    private static final Path DOCKERFILE = Manifest.ROOT.resolve("Dockerfile");
    private static final Set<String> SERVED =
            Set.of(HealthHttpServer.LIVENESS_PATH, HealthHttpServer.READINESS_PATH, HealthHttpServer.METRICS_PATH);

    @Test
    @DisplayName("as shipped, give a kubelet nothing to refuse: numeric non-root user, ports, probes, writable tmp")
    void shippedPairPasses() throws IOException {
        assertThat(KubeletCheck.problems(RuntimeStage.read(DOCKERFILE), Manifest.read(Manifest.SAMPLE), SERVED))
                .isEmpty();
    }

    @Test
    @DisplayName("the image is the one docs/worker.md tells users to build, tagged with the version being built")
    void workerPageBuildsTheSampleImage() throws IOException {
        String page = Files.readString(Manifest.ROOT.resolve("docs/worker.md"));
        String image = RuntimeStage.read(DOCKERFILE).documentedTag().orElseThrow();
        String version = System.getProperty("outbox.project.version", "").replace("-SNAPSHOT", "");

        assertThat(page).contains("docker build -t " + image + " .");
        assertThat(version).as("the project version (set by the build)").isNotEmpty();
        assertThat(image).endsWith(":" + version);
    }

    @Test
    @DisplayName("given an image with a named USER and runAsNonRoot, then the kubelet's refusal is reported")
    void namedUserIsRefused() throws IOException {
        RuntimeStage named = RuntimeStage.parse(dockerfile().replace("USER 10001:10001", "USER outbox"));
        Manifest withoutUid =
                Manifest.parse(sample().replace("runAsUser: 10001", "").replace("runAsGroup: 10001", ""));

        assertThat(KubeletCheck.problems(named, withoutUid, SERVED))
                .singleElement()
                .asString()
                .contains("non-numeric user");
    }

    @Test
    @DisplayName("given a tag the documented build does not produce, then the image is reported")
    void otherTagIsReported() throws IOException {
        Manifest other = Manifest.parse(sample().replaceAll("image: (\\S+):\\S+", "image: $1:latest"));

        assertThat(KubeletCheck.problems(RuntimeStage.read(DOCKERFILE), other, SERVED))
                .singleElement()
                .asString()
                .contains("not what the documented build produces");
    }

    @Test
    @DisplayName("given a probe on a path the worker does not serve, then the probe is reported")
    void unservedProbePath() throws IOException {
        Manifest other = Manifest.parse(sample().replace("path: /health/ready", "path: /ready"));

        assertThat(KubeletCheck.problems(RuntimeStage.read(DOCKERFILE), other, SERVED))
                .singleElement()
                .asString()
                .contains("readinessProbe calls /ready");
    }

    @Test
    @DisplayName("given a read-only root without the tmp volume, then the JVM's temporary directory is reported")
    void readOnlyRootNeedsTmp() throws IOException {
        Manifest other = Manifest.parse(sample().replace("mountPath: /tmp", "mountPath: /var/cache"));

        assertThat(KubeletCheck.problems(RuntimeStage.read(DOCKERFILE), other, SERVED))
                .singleElement()
                .asString()
                .contains("writable volume at /tmp");
    }

    private static String dockerfile() throws IOException {
        return Files.readString(DOCKERFILE);
    }

    private static String sample() throws IOException {
        return Files.readString(Manifest.SAMPLE);
    }
}
