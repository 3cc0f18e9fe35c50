package dev.outboxjava.spring.boot;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.outboxjava.spring.boot.archviolation.UsesWorkerInternals;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The auto-configuration")
class AutoConfigurationArchitectureTest {

    /** Spring wires the outbox here: Guice stays the standalone worker's, and other modules' internals stay theirs. */
    static final ArchRule SPRING_ONLY_AND_PUBLIC_API = noClasses().that().resideInAPackage("dev.outboxjava.spring.boot..")
            .should().dependOnClassesThat().resideInAnyPackage("com.google.inject..", "dev.outboxjava..internal..")
            .because("the auto-configuration uses Spring's own wiring and the other modules' public API only");

    @Test
    @DisplayName("uses neither Guice nor another module's internal packages")
    void springOnlyAndPublicApi() {
        JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.outboxjava.spring.boot");
        SPRING_ONLY_AND_PUBLIC_API.check(classes);
    }

    @Test
    @DisplayName("the rule fails on a class that uses a worker internal (Guice is not even on the classpath)")
    void ruleCatchesAViolation() {
        JavaClasses violating = new ClassFileImporter().importClasses(UsesWorkerInternals.class);
        assertThatThrownBy(() -> SPRING_ONLY_AND_PUBLIC_API.check(violating))
                .hasMessageContaining("WakeUpSignal");
    }
}
