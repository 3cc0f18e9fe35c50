package dev.outboxjava.postgres.internal;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Keeps the two store layouts apart: the shared {@code internal} package sits below both, the layout
 * packages never reach into each other, and no source file grows into a class that does everything.
 */
@DisplayName("Store layout packages")
class LayoutPackagesTest {

    private static final String SHARED = "dev.outboxjava.postgres.internal";
    private static final String IN_PLACE = SHARED + ".inplace..";
    private static final String APPEND_LOG = SHARED + ".appendlog..";

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.outboxjava.postgres");

    /** Lines a main source file may have. */
    private static final int MAX_LINES = 425;

    @Test
    @DisplayName("the in-place layout does not use the append-only one")
    void inPlaceDoesNotUseAppendLog() {
        noClasses()
                .that()
                .resideInAPackage(IN_PLACE)
                .should()
                .dependOnClassesThat()
                .resideInAPackage(APPEND_LOG)
                .allowEmptyShould(false)
                .check(MAIN);
    }

    @Test
    @DisplayName("the append-only layout does not use the in-place one")
    void appendLogDoesNotUseInPlace() {
        noClasses()
                .that()
                .resideInAPackage(APPEND_LOG)
                .should()
                .dependOnClassesThat()
                .resideInAPackage(IN_PLACE)
                .allowEmptyShould(false)
                .check(MAIN);
    }

    @Test
    @DisplayName("the shared internal package uses neither layout")
    void sharedUsesNoLayout() {
        noClasses()
                .that()
                .resideInAPackage(SHARED)
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(IN_PLACE, APPEND_LOG)
                .allowEmptyShould(false)
                .check(MAIN);
    }

    @Test
    @DisplayName("the layout packages use no class of the public package")
    void layoutsUseNoPublicClass() {
        noClasses()
                .that()
                .resideInAnyPackage(IN_PLACE, APPEND_LOG)
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.outboxjava.postgres")
                .allowEmptyShould(false)
                .check(MAIN);
    }

    @Test
    @DisplayName("no main source file is over " + MAX_LINES + " lines")
    void noLargeClass() throws IOException {
        List<String> tooLong;
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
            tooLong = sources.filter(path -> path.toString().endsWith(".java"))
                    .filter(path -> lines(path) > MAX_LINES)
                    .map(path -> path + " (" + lines(path) + " lines)")
                    .toList();
        }
        assertThat(tooLong).isEmpty();
    }

    private static long lines(Path path) {
        try (Stream<String> lines = Files.lines(path)) {
            return lines.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
