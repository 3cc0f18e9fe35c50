package dev.outboxjava.worker;

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
 * What a service that depends on outbox-worker gets: the broker adapters only if it adds the one it
 * uses (they are optional here), and nothing of the standalone application (connection pool, command
 * line, Prometheus registry, logging backend) in compile or runtime scope.
 */
@DisplayName("outbox-worker's published dependencies")
class EmbeddableDependenciesTest {

    private static final List<String> STANDALONE_ONLY =
            List.of("HikariCP", "picocli", "micrometer-registry-prometheus", "logback-classic", "outbox-relay-app");

    @Test
    @DisplayName("make both broker adapters optional")
    void brokersAreOptional() throws Exception {
        List<Element> dependencies = dependencies();
        for (String broker : List.of("outbox-broker-kafka", "outbox-broker-rabbitmq")) {
            assertThat(dependencies).as(broker).anySatisfy(dependency -> {
                assertThat(text(dependency, "artifactId")).isEqualTo(broker);
                assertThat(text(dependency, "optional")).isEqualTo("true");
            });
        }
    }

    @Test
    @DisplayName("bring nothing of the standalone application to a service")
    void noStandaloneDependencies() throws Exception {
        for (Element dependency : dependencies()) {
            if (STANDALONE_ONLY.contains(text(dependency, "artifactId"))) {
                assertThat(text(dependency, "scope"))
                        .as(text(dependency, "artifactId"))
                        .isEqualTo("test");
            }
        }
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
            // only the module's own dependencies, not those of plugins
            if (dependency.getParentNode().getParentNode() == project) {
                result.add(dependency);
            }
        }
        assertThat(result).as("dependencies of outbox-worker/pom.xml").isNotEmpty();
        return result;
    }

    private static String text(Element dependency, String child) {
        NodeList nodes = dependency.getElementsByTagName(child);
        return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().trim();
    }
}
