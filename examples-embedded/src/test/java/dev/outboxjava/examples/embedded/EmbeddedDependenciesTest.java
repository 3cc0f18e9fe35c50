package dev.outboxjava.examples.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The embedded relay needs only what a plain-Java service adds to its pom; the build's enforcer rule
 * (ban-standalone-dependencies) checks the transitive side: nothing of the standalone relay application in
 * compile or runtime scope.
 */
@DisplayName("The embedded relay example's dependencies")
class EmbeddedDependenciesTest {

    @Test
    @DisplayName("are outbox-postgres, outbox-worker, one broker module and Guice, besides test-scope fixtures")
    void exactlyTheThreeModules() throws Exception {
        List<String> compile = new ArrayList<>();
        List<String> test = new ArrayList<>();
        for (Element dependency : dependencies()) {
            String scope = text(dependency, "scope");
            (scope.equals("test") ? test : compile).add(text(dependency, "artifactId"));
        }

        assertThat(compile)
                .containsExactlyInAnyOrder("outbox-postgres", "outbox-worker", "outbox-broker-kafka", "guice");
        assertThat(test).allSatisfy(artifact -> assertThat(artifact).startsWith("outbox-testkit"));
    }

    private static List<Element> dependencies() throws Exception {
        Element project = DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(Path.of("pom.xml").toFile())
                .getDocumentElement();
        List<Element> result = new ArrayList<>();
        NodeList nodes = project.getElementsByTagName("dependency");
        for (int i = 0; i < nodes.getLength(); i++) {
            Element dependency = (Element) nodes.item(i);
            // the module's own dependencies, not those of plugins
            if (dependency.getParentNode().getParentNode() == project) {
                result.add(dependency);
            }
        }
        assertThat(result).as("dependencies of examples-embedded/pom.xml").isNotEmpty();
        return result;
    }

    private static String text(Element dependency, String child) {
        NodeList nodes = dependency.getElementsByTagName(child);
        return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().trim();
    }
}
