package dev.outboxjava.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * Maven Central refuses an artifact whose POM lacks a name, description, url, licence, developers or
 * scm. Every module the parent lists is published unless its POM sets {@code maven.deploy.skip}; each
 * must name and describe itself, and the POM at the top of its inheritance (the parent, or the BOM,
 * which has none) must carry the rest.
 */
@DisplayName("Every published module")
class PublishedPomMetadataTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().resolve("..").normalize();
    private static final List<String> OWN = List.of("name", "description");
    private static final List<String> INHERITED = List.of("url", "licenses", "developers", "scm");

    @Test
    @DisplayName("carries the metadata Maven Central requires")
    void carriesCentralMetadata() throws Exception {
        assertThat(problems(ROOT)).isEmpty();
    }

    @Test
    @DisplayName("is reported when it lacks its description, or the parent its licence")
    void reportsMissingMetadata(@TempDir Path tree) throws Exception {
        Files.writeString(tree.resolve("pom.xml"), """
                <project><name>Parent</name><description>d</description><url>u</url>
                  <developers><developer/></developers><scm><url>u</url></scm>
                  <modules><module>lib</module><module>demo</module></modules></project>""");
        Files.createDirectories(tree.resolve("lib"));
        Files.writeString(tree.resolve("lib/pom.xml"), "<project><parent/><name>Lib</name></project>");
        Files.createDirectories(tree.resolve("demo"));
        Files.writeString(
                tree.resolve("demo/pom.xml"),
                "<project><parent/><properties><maven.deploy.skip>true</maven.deploy.skip></properties></project>");

        assertThat(problems(tree)).containsExactlyInAnyOrder("lib/pom.xml: no <description>", "pom.xml: no <licenses>");
    }

    @Test
    @DisplayName("is listed in outbox-bom, and nothing unpublished is")
    void listedInTheBom() throws Exception {
        assertThat(bomProblems(ROOT)).isEmpty();
    }

    @Test
    @DisplayName("is reported when the BOM leaves it out, or lists a module that is not published")
    void reportsBomGaps(@TempDir Path tree) throws Exception {
        Files.writeString(tree.resolve("pom.xml"), """
                <project><modules><module>bom</module><module>lib</module><module>fixtures</module>
                  <module>demo</module></modules></project>""");
        Files.createDirectories(tree.resolve("bom"));
        Files.writeString(tree.resolve("bom/pom.xml"), """
                <project><artifactId>bom</artifactId><packaging>pom</packaging><dependencyManagement><dependencies>
                  <dependency><artifactId>lib</artifactId></dependency>
                  <dependency><artifactId>demo</artifactId></dependency>
                </dependencies></dependencyManagement></project>""");
        for (String module : List.of("lib", "fixtures")) {
            Files.createDirectories(tree.resolve(module));
            Files.writeString(
                    tree.resolve(module + "/pom.xml"),
                    "<project><parent/><artifactId>" + module + "</artifactId></project>");
        }
        Files.createDirectories(tree.resolve("demo"));
        Files.writeString(
                tree.resolve("demo/pom.xml"),
                "<project><parent/><artifactId>demo</artifactId>"
                        + "<properties><maven.deploy.skip>true</maven.deploy.skip></properties></project>");

        assertThat(bomProblems(tree, "bom"))
                .containsExactlyInAnyOrder(
                        "bom/pom.xml: no fixtures", "bom/pom.xml: lists demo, which is not published");
    }

    static List<String> bomProblems(Path root) throws Exception {
        return bomProblems(root, "outbox-bom");
    }

    /** Every published module with code (not a pom) is in the BOM, and the BOM lists nothing else. */
    static List<String> bomProblems(Path root, String bomModule) throws Exception {
        List<String> published = new ArrayList<>();
        List<String> unpublished = new ArrayList<>();
        for (Element module : children(read(root.resolve("pom.xml")), "modules", "module")) {
            Element pom = read(root.resolve(module.getTextContent().trim() + "/pom.xml"));
            Element packaging = child(pom, "packaging");
            if (packaging != null && packaging.getTextContent().trim().equals("pom")) {
                continue;
            }
            (deploySkipped(pom) ? unpublished : published)
                    .add(child(pom, "artifactId").getTextContent().trim());
        }
        Element management = child(read(root.resolve(bomModule + "/pom.xml")), "dependencyManagement");
        List<String> listed = new ArrayList<>();
        for (Element dependency :
                management == null ? List.<Element>of() : children(management, "dependencies", "dependency")) {
            listed.add(child(dependency, "artifactId").getTextContent().trim());
        }
        List<String> problems = new ArrayList<>();
        String path = bomModule + "/pom.xml";
        published.stream().filter(name -> !listed.contains(name)).forEach(name -> problems.add(path + ": no " + name));
        listed.stream()
                .filter(unpublished::contains)
                .forEach(name -> problems.add(path + ": lists " + name + ", which is not published"));
        return problems;
    }

    static List<String> problems(Path root) throws Exception {
        List<String> problems = new ArrayList<>();
        Element parent = read(root.resolve("pom.xml"));
        requireChildren(parent, "pom.xml", OWN, problems);
        requireChildren(parent, "pom.xml", INHERITED, problems);
        for (Element module : children(parent, "modules", "module")) {
            String path = module.getTextContent().trim() + "/pom.xml";
            Element pom = read(root.resolve(path));
            if (deploySkipped(pom)) {
                continue;
            }
            requireChildren(pom, path, OWN, problems);
            if (child(pom, "parent") == null) {
                requireChildren(pom, path, INHERITED, problems);
            }
        }
        return problems;
    }

    private static void requireChildren(Element pom, String path, List<String> names, List<String> problems) {
        for (String name : names) {
            Element element = child(pom, name);
            if (element == null || element.getTextContent().isBlank() && !element.hasChildNodes()) {
                problems.add(path + ": no <" + name + ">");
            }
        }
    }

    private static boolean deploySkipped(Element pom) {
        Element properties = child(pom, "properties");
        Element skip = properties == null ? null : child(properties, "maven.deploy.skip");
        return skip != null && skip.getTextContent().trim().equals("true");
    }

    private static List<Element> children(Element pom, String container, String name) {
        Element parent = child(pom, container);
        List<Element> found = new ArrayList<>();
        for (Node node = parent == null ? null : parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                found.add(element);
            }
        }
        return found;
    }

    private static Element child(Element parent, String name) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                return element;
            }
        }
        return null;
    }

    private static Element read(Path pom) throws ParserConfigurationException, SAXException, IOException {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document document = factory.newDocumentBuilder().parse(pom.toFile());
        return document.getDocumentElement();
    }
}
