package dev.outboxjava.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.outboxjava.console.archviolation.ConsoleUsingJdbc;
import dev.outboxjava.core.archviolation.CoreReadingSystemTime;
import dev.outboxjava.core.archviolation.CoreUsingInjectedClock;
import dev.outboxjava.core.archviolation.CoreUsingJooq;
import dev.outboxjava.examples.archviolation.ExamplesCycle;
import dev.outboxjava.kafka.archviolation.KafkaUsingPostgres;
import dev.outboxjava.postgres.archviolation.PostgresUsingGuice;
import dev.outboxjava.postgres.archviolation.PostgresUsingSpring;
import dev.outboxjava.rabbitmq.archviolation.RabbitMqUsingKafka;
import dev.outboxjava.relayapp.archviolation.RelayAppUsingWorkerInternals;
import dev.outboxjava.spring.boot.archviolation.SpringUsingWorkerInternals;
import dev.outboxjava.worker.archviolation.WorkerBuildingAPool;
import dev.outboxjava.worker.archviolation.WorkerCycle;
import dev.outboxjava.worker.archviolation.WorkerUsingRabbitMq;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keeps the module layering of docs/architecture.md true. Each rule is defined once, checked against every production
 * class of every module (this module depends on all of them), and proven able to fail on a small
 * fixture class that breaks it on purpose (see the {@code violations} folder: the fixtures sit in
 * packages the rules cover, but are test classes, which the production import leaves out).
 */
@DisplayName("Architecture")
class ArchitectureTest {

    private static final String CORE = "dev.outboxjava.core..";
    private static final List<String> ADAPTER_ROOTS =
            List.of("dev.outboxjava.postgres", "dev.outboxjava.kafka", "dev.outboxjava.rabbitmq");

    /** The core is pure: the JDK, slf4j-api and itself. */
    static final ArchRule CORE_DEPENDS_ONLY_ON_JDK_AND_SLF4J = classes()
            .that()
            .resideInAPackage(CORE)
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage(CORE, "java..", "org.slf4j..")
            .because("the core knows no adapter, framework or driver (docs/architecture.md)")
            .allowEmptyShould(false);

    /** Adapters are siblings that never know each other. */
    static final ArchRule ADAPTERS_DO_NOT_DEPEND_ON_EACH_OTHER = classes()
            .that()
            .resideInAnyPackage(ADAPTER_ROOTS.stream().map(root -> root + "..").toArray(String[]::new))
            .should(notDependOnAnotherAdapter())
            .because(
                    "a store or broker adapter depends on the core only, so a service takes only the adapters it uses (docs/architecture.md)")
            .allowEmptyShould(false);

    /** Dependency injection is the runnable assembly's business. */
    static final ArchRule ONLY_WORKER_AND_EXAMPLES_USE_GUICE = noClasses()
            .that()
            .resideOutsideOfPackages(
                    "dev.outboxjava.worker..", "dev.outboxjava.relayapp..", "dev.outboxjava.examples..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("com.google.inject..")
            .because(
                    "only outbox-worker, outbox-relay-app (and the examples) may know Guice: the library must not force a DI framework on the services that use it")
            .allowEmptyShould(false);

    /** The embeddable worker runs on the application's data source and registry, inside its process. */
    static final ArchRule WORKER_LEAVES_THE_PROCESS_TO_THE_APPLICATION = noClasses()
            .that()
            .resideInAPackage("dev.outboxjava.worker..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "dev.outboxjava.relayapp..",
                    "com.zaxxer.hikari..",
                    "picocli..",
                    "io.micrometer.prometheusmetrics..",
                    "io.prometheus..",
                    "ch.qos.logback..")
            .because("outbox-worker is embedded in a service that has its own pool, registry, command line and "
                    + "logging; the standalone process's parts belong to outbox-relay-app")
            .allowEmptyShould(false);

    /** A Kafka service loads no RabbitMQ class, and the other way round. */
    static final ArchRule WORKER_TOUCHES_RABBITMQ_ONLY_IN_ITS_MODULE = noClasses()
            .that()
            .resideInAPackage("dev.outboxjava.worker..")
            .and()
            .doNotHaveFullyQualifiedName("dev.outboxjava.worker.RabbitMqPublisherModule")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("dev.outboxjava.rabbitmq..", "com.rabbitmq..")
            .because(
                    "outbox-broker-rabbitmq is optional for outbox-worker: a service relaying to Kafka does not have it")
            .allowEmptyShould(false);

    /** See {@link #WORKER_TOUCHES_RABBITMQ_ONLY_IN_ITS_MODULE}. */
    static final ArchRule WORKER_TOUCHES_KAFKA_ONLY_IN_ITS_MODULE = noClasses()
            .that()
            .resideInAPackage("dev.outboxjava.worker..")
            .and()
            .doNotHaveFullyQualifiedName("dev.outboxjava.worker.KafkaPublisherModule")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("dev.outboxjava.kafka..", "org.apache.kafka..")
            .because(
                    "outbox-broker-kafka is optional for outbox-worker: a service relaying to RabbitMQ does not have it")
            .allowEmptyShould(false);

    /** The web console repairs through the store's operator API, which audits every change. */
    static final ArchRule CONSOLE_GOES_THROUGH_THE_OPERATOR_API = noClasses()
            .that()
            .resideInAPackage("dev.outboxjava.console..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "java.sql..",
                    "javax.sql..",
                    "org.jooq..",
                    "org.postgresql..",
                    "dev.outboxjava.postgres..",
                    "dev.outboxjava.worker..",
                    "com.google.inject..")
            .because("the console reads and writes only through the store's operator API (OperatorStore), never "
                    + "its own SQL, so every repair is audited and works on every store")
            .allowEmptyShould(false);

    /** Spring is one way to assemble the outbox, not a requirement of the library. */
    static final ArchRule ONLY_THE_SPRING_BOOT_MODULES_USE_SPRING = noClasses()
            .that()
            .resideOutsideOfPackages("dev.outboxjava.spring..", "dev.outboxjava.examples.springboot..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("org.springframework..")
            .because("only outbox-spring-boot-autoconfigure (and its example) may know Spring: a service on Guice, "
                    + "Quarkus or plain Java must not get Spring with the store or the worker")
            .allowEmptyShould(false);

    /** Time comes from an injected clock, so tests control it; nanoTime for durations is fine. */
    static final ArchRule CORE_NEVER_READS_THE_TIME_DIRECTLY = noClasses()
            .that()
            .resideInAPackage(CORE)
            .should()
            .callMethodWhere(readsTheSystemClock())
            .orShould()
            .callConstructorWhere(createsADateOfNow())
            .because(
                    "all times come from an injectable java.time.Clock, so tests control time instead of sleeping; pass the clock instead")
            .allowEmptyShould(false);

    /**
     * An {@code internal} package is not API: only classes under the package that holds it (its
     * module's base package, e.g. {@code dev.outboxjava.worker} for {@code dev.outboxjava.worker.internal})
     * may use it.
     */
    static final ArchRule INTERNAL_PACKAGES_STAY_IN_THEIR_MODULE = classes()
            .that()
            .resideInAPackage("dev.outboxjava..")
            .should(useNoInternalPackageOfAnotherModule())
            .because("internal packages may change in any release; a type another module needs belongs in the "
                    + "API package (docs/architecture.md)")
            .allowEmptyShould(false);

    /** The top-level packages (one per module) form no cycle. */
    static final ArchRule NO_CYCLES_BETWEEN_TOP_LEVEL_PACKAGES =
            slices().matching("dev.outboxjava.(*)..").should().beFreeOfCycles().allowEmptyShould(false);

    /**
     * Every production class of every module; the violating fixtures are test classes and stay out.
     * ArchUnit's own test filter knows {@code target/test-classes} only, and the build folder can be
     * renamed ({@code -Doutbox.target=...}), so any {@code test-classes} folder is left out too.
     */
    private static final JavaClasses PRODUCTION = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("/test-classes/"))
            .importPackages("dev.outboxjava");

    private static JavaClasses fixtures(Class<?>... classes) {
        return new ClassFileImporter().importClasses(classes);
    }

    private static void assertFailsNaming(ArchRule rule, JavaClasses fixtures, String... mentions) {
        EvaluationResult result = rule.evaluate(fixtures);
        assertThat(result.hasViolation()).as("the rule reports the violation").isTrue();
        assertThat(result.getFailureReport().getDetails())
                .as("a violation that names the offender and what it reached for")
                .anySatisfy(detail -> assertThat(detail).contains(mentions));
    }

    @Nested
    @DisplayName("the production import")
    class ProductionImport {

        @ParameterizedTest(name = "{0}")
        @ValueSource(
                strings = {
                    "dev.outboxjava.core",
                    "dev.outboxjava.postgres",
                    "dev.outboxjava.kafka",
                    "dev.outboxjava.rabbitmq",
                    "dev.outboxjava.worker",
                    "dev.outboxjava.relayapp",
                    "dev.outboxjava.console",
                    "dev.outboxjava.testkit",
                    "dev.outboxjava.spring.boot",
                    "dev.outboxjava.examples",
                    "dev.outboxjava.examples.springboot"
                })
        @DisplayName("sees the classes of every module, so no rule passes for lack of classes")
        void seesEveryModule(String rootPackage) {
            assertThat(PRODUCTION.stream()
                            .filter(c -> c.getPackageName().equals(rootPackage)
                                    || c.getPackageName().startsWith(rootPackage + ".")))
                    .isNotEmpty();
        }

        @Test
        @DisplayName("leaves the deliberately violating fixtures out")
        void leavesFixturesOut() {
            assertThat(PRODUCTION.stream().map(JavaClass::getPackageName))
                    .noneMatch(name -> name.contains("archviolation"));
        }
    }

    @Nested
    @DisplayName("the core depends only on java.. and org.slf4j..")
    class CoreIsPure {

        @Test
        @DisplayName("holds for the production code")
        void holds() {
            CORE_DEPENDS_ONLY_ON_JDK_AND_SLF4J.check(PRODUCTION);
        }

        @Test
        @DisplayName("fails on a core class that uses jOOQ")
        void failsOnViolation() {
            assertFailsNaming(
                    CORE_DEPENDS_ONLY_ON_JDK_AND_SLF4J,
                    fixtures(CoreUsingJooq.class),
                    CoreUsingJooq.class.getName(),
                    "org.jooq");
        }
    }

    @Nested
    @DisplayName("adapters never depend on each other")
    class AdaptersAreIndependent {

        @Test
        @DisplayName("holds for the production code")
        void holds() {
            ADAPTERS_DO_NOT_DEPEND_ON_EACH_OTHER.check(PRODUCTION);
        }

        @Test
        @DisplayName("fails on a Kafka class that uses the PostgreSQL store")
        void failsOnKafkaToPostgres() {
            assertFailsNaming(
                    ADAPTERS_DO_NOT_DEPEND_ON_EACH_OTHER,
                    fixtures(KafkaUsingPostgres.class),
                    KafkaUsingPostgres.class.getName(),
                    "dev.outboxjava.postgres.PostgresOutboxStore");
        }

        @Test
        @DisplayName("fails on a RabbitMQ class that uses the Kafka publisher")
        void failsOnRabbitToKafka() {
            assertFailsNaming(
                    ADAPTERS_DO_NOT_DEPEND_ON_EACH_OTHER,
                    fixtures(RabbitMqUsingKafka.class),
                    RabbitMqUsingKafka.class.getName(),
                    "dev.outboxjava.kafka.KafkaPublisher");
        }
    }

    @Nested
    @DisplayName("the console goes through the store's operator API")
    class ConsoleUsesTheOperatorApi {

        @Test
        @DisplayName("holds for the production code")
        void holds() {
            CONSOLE_GOES_THROUGH_THE_OPERATOR_API.check(PRODUCTION);
        }

        @Test
        @DisplayName("fails on a console class that runs its own SQL")
        void failsOnViolation() {
            assertFailsNaming(
                    CONSOLE_GOES_THROUGH_THE_OPERATOR_API,
                    fixtures(ConsoleUsingJdbc.class),
                    ConsoleUsingJdbc.class.getName(),
                    "javax.sql.DataSource");
        }
    }

    @Nested
    @DisplayName("only the worker and the examples use Guice")
    class GuiceStaysInTheWorker {

        @Test
        @DisplayName("holds for the production code")
        void holds() {
            ONLY_WORKER_AND_EXAMPLES_USE_GUICE.check(PRODUCTION);
        }

        @Test
        @DisplayName("fails on a PostgreSQL-adapter class that creates an injector")
        void failsOnViolation() {
            assertFailsNaming(
                    ONLY_WORKER_AND_EXAMPLES_USE_GUICE,
                    fixtures(PostgresUsingGuice.class),
                    PostgresUsingGuice.class.getName(),
                    "com.google.inject.Guice");
        }
    }

    @Nested
    @DisplayName("only the Spring Boot modules use Spring")
    class SpringStaysInItsModules {

        @Test
        @DisplayName("holds for the production code")
        void holds() {
            ONLY_THE_SPRING_BOOT_MODULES_USE_SPRING.check(PRODUCTION);
        }

        @Test
        @DisplayName("fails on a PostgreSQL-adapter class that asks Spring for its transaction")
        void failsOnViolation() {
            assertFailsNaming(
                    ONLY_THE_SPRING_BOOT_MODULES_USE_SPRING,
                    fixtures(PostgresUsingSpring.class),
                    PostgresUsingSpring.class.getName(),
                    "org.springframework.transaction.support");
        }
    }

    @Nested
    @DisplayName("the embeddable worker leaves pool, command line, Prometheus and the other broker to the application")
    class WorkerIsEmbeddable {

        @Test
        @DisplayName("holds for the production code")
        void holds() {
            WORKER_LEAVES_THE_PROCESS_TO_THE_APPLICATION.check(PRODUCTION);
            WORKER_TOUCHES_RABBITMQ_ONLY_IN_ITS_MODULE.check(PRODUCTION);
            WORKER_TOUCHES_KAFKA_ONLY_IN_ITS_MODULE.check(PRODUCTION);
        }

        @Test
        @DisplayName("fails on a worker class that builds a Hikari pool")
        void failsOnPool() {
            assertFailsNaming(
                    WORKER_LEAVES_THE_PROCESS_TO_THE_APPLICATION,
                    fixtures(WorkerBuildingAPool.class),
                    WorkerBuildingAPool.class.getName(),
                    "com.zaxxer.hikari.HikariDataSource");
        }

        @Test
        @DisplayName("fails on a worker class outside RabbitMqPublisherModule that uses the RabbitMQ client")
        void failsOnRabbitMqOutsideItsModule() {
            assertFailsNaming(
                    WORKER_TOUCHES_RABBITMQ_ONLY_IN_ITS_MODULE,
                    fixtures(WorkerUsingRabbitMq.class),
                    WorkerUsingRabbitMq.class.getName(),
                    "com.rabbitmq.client.ConnectionFactory");
        }
    }

    @Nested
    @DisplayName("no core class reads the time directly")
    class CoreTimeComesFromAClock {

        @Test
        @DisplayName("holds for the production code")
        void holds() {
            CORE_NEVER_READS_THE_TIME_DIRECTLY.check(PRODUCTION);
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(
                strings = {
                    "java.time.Instant.now()",
                    "java.lang.System.currentTimeMillis()",
                    "java.time.LocalDateTime.now()",
                    "java.time.ZonedDateTime.now(java.time.ZoneId)",
                    "java.util.Date.<init>()"
                })
        @DisplayName("fails on a core class that reads the system clock")
        void failsOnViolation(String call) {
            assertFailsNaming(
                    CORE_NEVER_READS_THE_TIME_DIRECTLY,
                    fixtures(CoreReadingSystemTime.class),
                    CoreReadingSystemTime.class.getName(),
                    call);
        }

        @Test
        @DisplayName("allows an injected clock, now(clock), a Clock.systemUTC() default and System.nanoTime()")
        void allowsInjectedClock() {
            EvaluationResult result =
                    CORE_NEVER_READS_THE_TIME_DIRECTLY.evaluate(fixtures(CoreUsingInjectedClock.class));
            assertThat(result.getFailureReport().getDetails()).isEmpty();
        }
    }

    @Nested
    @DisplayName("an internal package is used only inside its own module")
    class InternalsStayInternal {

        @Test
        @DisplayName("holds for the production code")
        void holds() {
            INTERNAL_PACKAGES_STAY_IN_THEIR_MODULE.check(PRODUCTION);
        }

        @Test
        @DisplayName("fails on a relay-application class that uses the worker's internal Backoff")
        void failsOnViolation() {
            assertFailsNaming(
                    INTERNAL_PACKAGES_STAY_IN_THEIR_MODULE,
                    fixtures(RelayAppUsingWorkerInternals.class),
                    RelayAppUsingWorkerInternals.class.getName(),
                    "dev.outboxjava.worker.internal.Backoff");
        }

        @Test
        @DisplayName("fails on an auto-configuration class that uses the worker's internal WakeUpSignal")
        void failsInTheSpringBootModule() {
            assertFailsNaming(
                    INTERNAL_PACKAGES_STAY_IN_THEIR_MODULE,
                    fixtures(SpringUsingWorkerInternals.class),
                    SpringUsingWorkerInternals.class.getName(),
                    "dev.outboxjava.worker.internal.WakeUpSignal");
        }
    }

    @Nested
    @DisplayName("the top-level packages form no cycle")
    class NoCycles {

        @Test
        @DisplayName("holds for the production code")
        void holds() {
            NO_CYCLES_BETWEEN_TOP_LEVEL_PACKAGES.check(PRODUCTION);
        }

        @Test
        @DisplayName("fails on a worker class and an examples class that use each other")
        void failsOnViolation() {
            assertFailsNaming(
                    NO_CYCLES_BETWEEN_TOP_LEVEL_PACKAGES,
                    fixtures(WorkerCycle.class, ExamplesCycle.class),
                    WorkerCycle.class.getName(),
                    ExamplesCycle.class.getName());
        }
    }

    // --- rule parts ---------------------------------------------------------------------------------

    private static Optional<String> adapterOf(JavaClass javaClass) {
        String name = javaClass.getPackageName();
        return ADAPTER_ROOTS.stream()
                .filter(root -> name.equals(root) || name.startsWith(root + "."))
                .findFirst();
    }

    private static ArchCondition<JavaClass> notDependOnAnotherAdapter() {
        return new ArchCondition<>("not depend on another adapter (" + String.join(", ", ADAPTER_ROOTS) + ")") {
            @Override
            public void check(JavaClass item, ConditionEvents events) {
                Optional<String> own = adapterOf(item);
                for (Dependency dependency : item.getDirectDependenciesFromSelf()) {
                    Optional<String> target = adapterOf(dependency.getTargetClass());
                    if (target.isPresent() && !target.equals(own)) {
                        events.add(SimpleConditionEvent.violated(dependency, dependency.getDescription()));
                    }
                }
            }
        };
    }

    /** The package an internal package belongs to ({@code a.b} for {@code a.b.internal.c}), if it is one. */
    static Optional<String> baseOfInternal(String packageName) {
        List<String> segments = List.of(packageName.split("\\."));
        int internal = segments.indexOf("internal");
        return internal < 1 ? Optional.empty() : Optional.of(String.join(".", segments.subList(0, internal)));
    }

    private static ArchCondition<JavaClass> useNoInternalPackageOfAnotherModule() {
        return new ArchCondition<>("use no internal package outside their own base package") {
            @Override
            public void check(JavaClass item, ConditionEvents events) {
                String own = item.getPackageName();
                for (Dependency dependency : item.getDirectDependenciesFromSelf()) {
                    JavaClass target = dependency.getTargetClass().getBaseComponentType();
                    if (!target.getPackageName().startsWith("dev.outboxjava.")) {
                        continue;
                    }
                    Optional<String> base = baseOfInternal(target.getPackageName());
                    if (base.isPresent() && !own.equals(base.get()) && !own.startsWith(base.get() + ".")) {
                        events.add(SimpleConditionEvent.violated(dependency, dependency.getDescription()));
                    }
                }
            }
        };
    }

    private static DescribedPredicate<JavaMethodCall> readsTheSystemClock() {
        return DescribedPredicate.describe(
                "Instant.now(), System.currentTimeMillis() or another java.time now() without a Clock argument",
                call -> {
                    AccessTarget.MethodCallTarget target = call.getTarget();
                    String owner = target.getOwner().getName();
                    if (owner.equals("java.lang.System")) {
                        return target.getName().equals("currentTimeMillis");
                    }
                    return target.getName().equals("now")
                            && target.getOwner().getPackageName().startsWith("java.time")
                            && target.getRawParameterTypes().stream()
                                    .noneMatch(type -> type.getName().equals("java.time.Clock"));
                });
    }

    private static DescribedPredicate<JavaConstructorCall> createsADateOfNow() {
        return DescribedPredicate.describe(
                "new java.util.Date()",
                call -> call.getTarget().getOwner().getName().equals("java.util.Date")
                        && call.getTarget().getRawParameterTypes().isEmpty());
    }
}
