package dev.outboxjava.relayapp.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a kubelet (and the worker) would make of a Deployment running an image, found without either:
 * the user a {@code runAsNonRoot} pod may run as, the image the documented build produces, the ports
 * and probe paths the worker serves, and the paths the JVM writes to on a read-only root file system.
 * Each problem is one sentence naming the field to change.
 */
public final class KubeletCheck {

    private KubeletCheck() {}

    /**
     * @param image the Dockerfile's runtime stage
     * @param manifest the manifest holding the Deployment and its ConfigMap
     * @param servedPaths the HTTP paths the worker answers
     */
    public static List<String> problems(RuntimeStage image, Manifest manifest, Set<String> servedPaths) {
        List<String> problems = new ArrayList<>();
        JsonNode deployment = manifest.kind("Deployment");
        JsonNode pod = deployment.at("/spec/template/spec");
        JsonNode container = pod.at("/containers/0");
        user(image, pod.path("securityContext"), container.path("securityContext"), problems);

        String imageName = container.path("image").asText();
        if (image.documentedTag().isEmpty()) {
            problems.add("the Dockerfile documents no 'docker build -t <name:tag> .'");
        } else if (!imageName.equals(image.documentedTag().get())) {
            problems.add("container image " + imageName + " is not what the documented build produces: "
                    + image.documentedTag().get());
        }

        Map<String, String> environment = new HashMap<>(image.environment());
        environment.putAll(Manifest.fields(manifest.kind("ConfigMap").path("data")));
        String httpPort = environment.getOrDefault("OUTBOX_HTTP_PORT", "8080");
        Map<String, String> ports = new HashMap<>();
        container
                .path("ports")
                .forEach(port -> ports.put(
                        port.path("name").asText(), port.path("containerPort").asText()));
        if (!ports.containsValue(httpPort)) {
            problems.add("no containerPort is OUTBOX_HTTP_PORT=" + httpPort + ", the port the worker listens on");
        }
        if (!image.exposed().contains(httpPort)) {
            problems.add("the image EXPOSEs " + image.exposed() + ", not OUTBOX_HTTP_PORT=" + httpPort);
        }
        Optional<String> healthCheckPath = image.healthCheck().stream()
                .filter(arg -> arg.startsWith("http://"))
                .map(url -> URI.create(url).getPath())
                .findFirst();
        for (String probe : List.of("livenessProbe", "readinessProbe")) {
            JsonNode get = container.path(probe).path("httpGet");
            if (get.isMissingNode()) {
                problems.add(probe + " has no httpGet");
                continue;
            }
            String path = get.path("path").asText();
            if (!servedPaths.contains(path)) {
                problems.add(probe + " calls " + path + ", which the worker does not serve " + servedPaths);
            }
            String port = get.path("port").asText();
            String number = ports.getOrDefault(port, port);
            if (!number.equals(httpPort)) {
                problems.add(probe + " calls port " + port + ", not the worker's " + httpPort);
            }
        }
        String liveness = container.at("/livenessProbe/httpGet/path").asText();
        if (healthCheckPath.isPresent() && !healthCheckPath.get().equals(liveness)) {
            problems.add("livenessProbe calls " + liveness + " while the image's HEALTHCHECK calls "
                    + healthCheckPath.get());
        }
        JsonNode annotations = deployment.at("/spec/template/metadata/annotations");
        if (annotations.has("prometheus.io/path")) {
            String scrape = annotations.path("prometheus.io/path").asText();
            if (!servedPaths.contains(scrape)) {
                problems.add("prometheus.io/path " + scrape + " is not served by the worker");
            }
            if (!annotations.path("prometheus.io/port").asText().equals(httpPort)) {
                problems.add("prometheus.io/port is not the worker's " + httpPort);
            }
        }

        if (container.at("/securityContext/readOnlyRootFilesystem").asBoolean(false)) {
            String tmp = image.javaTmpDir();
            boolean writable = false;
            for (JsonNode mount : container.path("volumeMounts")) {
                String mountPath = mount.path("mountPath").asText();
                if ((tmp + "/").startsWith(mountPath.endsWith("/") ? mountPath : mountPath + "/")
                        && !mount.path("readOnly").asBoolean(false)) {
                    writable = true;
                }
            }
            if (!writable) {
                problems.add("readOnlyRootFilesystem without a writable volume at " + tmp
                        + " (java.io.tmpdir: the JVM's perf data and temporary files)");
            }
        }
        return problems;
    }

    private static void user(RuntimeStage image, JsonNode pod, JsonNode container, List<String> problems) {
        boolean nonRoot = container.has("runAsNonRoot")
                ? container.path("runAsNonRoot").asBoolean()
                : pod.path("runAsNonRoot").asBoolean(false);
        Optional<Long> runAsUser = number(container, pod, "runAsUser");
        Optional<Long> runAsGroup = number(container, pod, "runAsGroup");
        if (nonRoot) {
            Optional<Long> uid = runAsUser.or(image::uid);
            if (uid.isEmpty()) {
                problems.add("runAsNonRoot with an image whose USER is '" + image.user()
                        + "': the kubelet refuses it (image has non-numeric user); use a numeric USER or runAsUser");
            } else if (uid.get() == 0) {
                problems.add("runAsNonRoot with uid 0: the kubelet refuses it");
            }
        }
        if (runAsUser.isPresent() && image.uid().isPresent() && !runAsUser.equals(image.uid())) {
            problems.add("runAsUser " + runAsUser.get() + " is not the image's USER " + image.user());
        }
        if (runAsGroup.isPresent() && image.gid().isPresent() && !runAsGroup.equals(image.gid())) {
            problems.add("runAsGroup " + runAsGroup.get() + " is not the image's USER " + image.user());
        }
    }

    private static Optional<Long> number(JsonNode container, JsonNode pod, String field) {
        JsonNode value = container.has(field) ? container.path(field) : pod.path(field);
        return value.isNumber() ? Optional.of(value.asLong()) : Optional.empty();
    }
}
