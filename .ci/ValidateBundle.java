import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks a Central Portal bundle (the zip that central-publishing-maven-plugin stages) the way the portal
 * validates a deployment, and what the project promises on top:
 *
 * <ul>
 *   <li>every artifact has its pom, and a jar-packaged one its jar, -sources.jar and -javadoc.jar;
 *   <li>every file has an .md5 and a .sha1 that match it, and an .asc signature that gpg verifies;
 *   <li>every pom has name, description, url, licenses, scm (url, connection) and developers, itself or from
 *       a parent in the bundle, a release version (no -SNAPSHOT) and no unresolved ${...} in its coordinates;
 *   <li>the BOM lists exactly the published modules, at the bundle's version, and no published module depends
 *       (compile or runtime) on a module of ours that is not published.
 * </ul>
 *
 * Usage: {@code java .ci/ValidateBundle.java target/central-publishing/central-bundle.zip outbox-bom/pom.xml}
 * (gpg must hold the public key that signed the bundle). Exits 1 listing every problem.
 */
public class ValidateBundle {

    private static final String GROUP_PATH = "dev/outboxjava/";
    private static final String BOM = "outbox-bom";
    private static final String PARENT = "outbox-parent";

    record Artifact(String artifactId, String version, Map<String, byte[]> files) {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: java .ci/ValidateBundle.java <central-bundle.zip> <outbox-bom/pom.xml>");
            System.exit(2);
        }
        Path bundle = Path.of(args[0]);
        if (!Files.isRegularFile(bundle)) {
            System.err.println("no bundle at " + bundle + ": run the release profile's deploy first");
            System.exit(2);
        }
        Map<String, Artifact> artifacts = read(bundle);
        List<String> problems = new ArrayList<>();
        Map<String, Element> poms = new TreeMap<>();
        for (Artifact artifact : artifacts.values()) {
            String base = artifact.artifactId() + "-" + artifact.version();
            byte[] pomBytes = artifact.files().get(base + ".pom");
            if (pomBytes == null) {
                problems.add(artifact.artifactId() + ": no " + base + ".pom");
                continue;
            }
            Element pom = parse(pomBytes);
            poms.put(artifact.artifactId(), pom);
            String packaging = text(pom, "packaging").orElse("jar");
            if (packaging.equals("jar")) {
                for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar")) {
                    if (!artifact.files().containsKey(base + suffix)) {
                        problems.add(artifact.artifactId() + ": no " + base + suffix);
                    }
                }
            }
            for (Map.Entry<String, byte[]> file : artifact.files().entrySet()) {
                String name = file.getKey();
                if (isSidecar(name)) {
                    continue;
                }
                checksum(artifact, name, "md5", "MD5", problems);
                checksum(artifact, name, "sha1", "SHA-1", problems);
                byte[] signature = artifact.files().get(name + ".asc");
                if (signature == null) {
                    problems.add(artifact.artifactId() + ": " + name + " is not signed (no .asc)");
                } else if (!verifies(file.getValue(), signature)) {
                    problems.add(artifact.artifactId() + ": " + name + ".asc does not verify");
                }
            }
            if (artifact.version().endsWith("-SNAPSHOT")) {
                problems.add(artifact.artifactId() + ": " + artifact.version() + " is a snapshot; Central takes releases only");
            }
            String declared = text(pom, "version")
                    .or(() -> child(pom, "parent").flatMap(parent -> text(parent, "version")))
                    .orElse("");
            if (!declared.equals(artifact.version())) {
                problems.add(artifact.artifactId() + ": the pom's version is '" + declared + "', not " + artifact.version()
                        + " (an unresolved ${revision}?)");
            }
        }
        for (Map.Entry<String, Element> entry : poms.entrySet()) {
            metadata(entry.getKey(), entry.getValue(), poms, problems);
        }

        Set<String> published = new TreeSet<>(artifacts.keySet());
        published.remove(BOM);
        published.remove(PARENT);
        Element bom = poms.get(BOM);
        if (bom == null) {
            problems.add("the bundle holds no " + BOM);
        } else {
            Set<String> listed = new TreeSet<>();
            String version = artifacts.get(BOM).version();
            for (Element dependency : dependencies(bom, "dependencyManagement")) {
                listed.add(text(dependency, "artifactId").orElse(""));
                String listedVersion = text(dependency, "version").orElse("");
                String resolved = listedVersion.equals("${project.version}") ? version : listedVersion;
                if (!resolved.equals(version)) {
                    problems.add(BOM + " lists " + text(dependency, "artifactId").orElse("?") + " at " + listedVersion);
                }
            }
            Set<String> unlisted = new TreeSet<>(published);
            unlisted.removeAll(listed);
            Set<String> unpublished = new TreeSet<>(listed);
            unpublished.removeAll(published);
            if (!unlisted.isEmpty()) {
                problems.add("in the bundle but not in " + BOM + " (unpublished modules must stay out of the bundle, "
                        + "published ones belong in the BOM): " + unlisted);
            }
            if (!unpublished.isEmpty()) {
                problems.add(BOM + " lists modules the bundle does not publish: " + unpublished);
            }
        }
        for (Map.Entry<String, Element> entry : poms.entrySet()) {
            for (Element dependency : dependencies(entry.getValue(), null)) {
                String scope = text(dependency, "scope").orElse("compile");
                String groupId = text(dependency, "groupId").orElse("");
                String artifactId = text(dependency, "artifactId").orElse("");
                if (groupId.equals("dev.outboxjava")
                        && (scope.equals("compile") || scope.equals("runtime"))
                        && !artifacts.containsKey(artifactId)) {
                    problems.add(entry.getKey() + " depends on " + artifactId + " (" + scope + "), which is not published");
                }
            }
        }
        // the checked-in BOM is the one that was staged
        Element sourceBom = parse(Files.readAllBytes(Path.of(args[1])));
        if (bom != null && dependencies(sourceBom, "dependencyManagement").size()
                != dependencies(bom, "dependencyManagement").size()) {
            problems.add("the staged " + BOM + " differs from " + args[1]);
        }

        if (!problems.isEmpty()) {
            System.err.println("[validate-bundle] " + bundle + ": " + problems.size() + " problem(s)");
            problems.forEach(problem -> System.err.println("  - " + problem));
            System.exit(1);
        }
        System.out.println("[validate-bundle] " + bundle + ": " + artifacts.size() + " artifacts at "
                + artifacts.values().iterator().next().version() + " (" + published.size()
                + " modules, the parent and the BOM): files, checksums, signatures, pom metadata and BOM complete");
    }

    private static Map<String, Artifact> read(Path bundle) throws IOException {
        Map<String, Artifact> artifacts = new TreeMap<>();
        try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(bundle))) {
            for (ZipEntry entry; (entry = zip.getNextEntry()) != null; ) {
                if (entry.isDirectory()) {
                    continue;
                }
                String path = entry.getName();
                if (!path.startsWith(GROUP_PATH)) {
                    throw new IllegalStateException("unexpected entry outside dev.outboxjava: " + path);
                }
                String[] parts = path.substring(GROUP_PATH.length()).split("/");
                if (parts.length != 3) {
                    throw new IllegalStateException("unexpected entry: " + path);
                }
                byte[] bytes = zip.readAllBytes();
                artifacts.computeIfAbsent(parts[0], id -> new Artifact(id, parts[1], new TreeMap<>()))
                        .files()
                        .put(parts[2], bytes);
            }
        }
        if (artifacts.isEmpty()) {
            throw new IllegalStateException(bundle + " is empty");
        }
        return artifacts;
    }

    private static boolean isSidecar(String name) {
        return name.endsWith(".asc") || name.endsWith(".md5") || name.endsWith(".sha1") || name.endsWith(".sha256")
                || name.endsWith(".sha512");
    }

    private static void checksum(Artifact artifact, String name, String extension, String algorithm, List<String> problems)
            throws NoSuchAlgorithmException {
        byte[] sidecar = artifact.files().get(name + "." + extension);
        if (sidecar == null) {
            problems.add(artifact.artifactId() + ": " + name + " has no ." + extension);
            return;
        }
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(artifact.files().get(name)));
        String given = new String(sidecar, StandardCharsets.US_ASCII).trim().split("\\s+")[0];
        if (!given.equalsIgnoreCase(expected)) {
            problems.add(artifact.artifactId() + ": " + name + "." + extension + " does not match the file");
        }
    }

    private static boolean verifies(byte[] file, byte[] signature) throws IOException, InterruptedException {
        Path directory = Files.createTempDirectory("validate-bundle");
        try {
            Path data = Files.write(directory.resolve("file"), file);
            Path asc = Files.write(directory.resolve("file.asc"), signature);
            Process gpg = new ProcessBuilder("gpg", "--batch", "--quiet", "--verify", asc.toString(), data.toString())
                    .redirectErrorStream(true)
                    .start();
            gpg.getInputStream().readAllBytes();
            return gpg.waitFor(60, TimeUnit.SECONDS) && gpg.exitValue() == 0;
        } finally {
            try (var files = Files.list(directory)) {
                for (Path path : files.toList()) {
                    Files.delete(path);
                }
            }
            Files.delete(directory);
        }
    }

    /** Central's required elements: in the pom itself (name, description) or inherited from a parent in the bundle. */
    private static void metadata(String artifactId, Element pom, Map<String, Element> poms, List<String> problems) {
        for (String field : List.of("name", "description")) {
            if (text(pom, field).filter(value -> !value.isBlank()).isEmpty()) {
                problems.add(artifactId + ": the pom has no <" + field + ">");
            }
        }
        for (String path : List.of("url", "licenses/license/name", "licenses/license/url", "scm/url", "scm/connection",
                "developers/developer/name")) {
            if (inherited(pom, path, poms).isEmpty()) {
                problems.add(artifactId + ": no <" + path + "> in the pom or its parents");
            }
        }
    }

    private static Optional<String> inherited(Element pom, String path, Map<String, Element> poms) {
        Optional<String> own = at(pom, path);
        if (own.isPresent()) {
            return own;
        }
        return child(pom, "parent")
                .flatMap(parent -> text(parent, "artifactId"))
                .map(poms::get)
                .flatMap(parent -> inherited(parent, path, poms));
    }

    private static Optional<String> at(Element element, String path) {
        Element current = element;
        String[] steps = path.split("/");
        for (int i = 0; i < steps.length - 1; i++) {
            Optional<Element> next = child(current, steps[i]);
            if (next.isEmpty()) {
                return Optional.empty();
            }
            current = next.get();
        }
        return text(current, steps[steps.length - 1]).filter(value -> !value.isBlank());
    }

    private static List<Element> dependencies(Element pom, String section) {
        Optional<Element> holder = section == null ? Optional.of(pom) : child(pom, section);
        List<Element> found = new ArrayList<>();
        holder.flatMap(h -> child(h, "dependencies")).ifPresent(dependencies -> {
            for (Node node = dependencies.getFirstChild(); node != null; node = node.getNextSibling()) {
                if (node instanceof Element dependency && dependency.getTagName().equals("dependency")) {
                    found.add(dependency);
                }
            }
        });
        return found;
    }

    private static Optional<Element> child(Element parent, String name) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                return Optional.of(element);
            }
        }
        return Optional.empty();
    }

    private static Optional<String> text(Element parent, String name) {
        return child(parent, name).map(element -> element.getTextContent().trim());
    }

    private static Element parse(byte[] bytes) throws Exception {
        try (InputStream in = new ByteArrayInputStream(bytes)) {
            return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in).getDocumentElement();
        }
    }
}
