package dev.outboxjava.relayapp.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The documents of a Kubernetes manifest (YAML, several documents), looked up by kind. */
public record Manifest(List<JsonNode> documents) {

    /** The repository's root, from a module's directory (where Maven runs the tests). */
    public static final Path ROOT = Path.of("").toAbsolutePath().resolve("..").normalize();

    /** The repository's sample. */
    public static final Path SAMPLE = ROOT.resolve("deploy/kubernetes/outbox-worker.yaml");

    public static Manifest read(Path file) throws IOException {
        return parse(Files.readString(file));
    }

    public static Manifest parse(String yaml) throws IOException {
        List<JsonNode> documents = new ArrayList<>();
        try (MappingIterator<JsonNode> iterator =
                new ObjectMapper(new YAMLFactory()).readerFor(JsonNode.class).readValues(yaml)) {
            while (iterator.hasNext()) {
                JsonNode document = iterator.next();
                if (document != null && !document.isMissingNode() && !document.isNull()) {
                    documents.add(document);
                }
            }
        }
        return new Manifest(documents);
    }

    public JsonNode kind(String kind) {
        return documents.stream()
                .filter(document -> kind.equals(document.path("kind").asText()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the manifest has no " + kind));
    }

    /** A ConfigMap's {@code data} or a Secret's {@code stringData} as a map. */
    public static Map<String, String> fields(JsonNode node) {
        Map<String, String> fields = new LinkedHashMap<>();
        node.properties()
                .forEach(field -> fields.put(field.getKey(), field.getValue().asText()));
        return fields;
    }
}
