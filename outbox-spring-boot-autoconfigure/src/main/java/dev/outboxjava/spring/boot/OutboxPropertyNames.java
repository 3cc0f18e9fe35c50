package dev.outboxjava.spring.boot;

import dev.outboxjava.core.InvalidConfigurationException;
import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Refuses {@code outbox.*} keys that no property of {@link OutboxProperties} binds, as the standalone
 * worker refuses unknown settings: Spring Boot would ignore them, and {@code outbox.relay.batch.size=50000}
 * (the standalone worker's spelling) would start fine and do nothing. Each unknown key is named with the
 * nearest property. Checked are the application's own sources (its properties and YAML files, command-line
 * arguments, test properties); not JVM system properties or environment variables, which the whole
 * process shares with other tools (the standalone worker's {@code OUTBOX_*} variables, the test fixtures'
 * {@code outbox.test.*}).
 */
final class OutboxPropertyNames {

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("outbox");
    private static final ConfigurationPropertyName FIXTURES = ConfigurationPropertyName.of("outbox.test");
    private static final ConfigurationPropertyName ROUTES = ConfigurationPropertyName.of("outbox.routes");

    /** Every property the starter binds, kebab-case ({@code outbox.relay.batch-size}). */
    static final List<String> KNOWN = known();

    private OutboxPropertyNames() {}

    /** @throws InvalidConfigurationException naming every unknown {@code outbox.*} key and its nearest property */
    static void check(Environment environment) {
        Set<String> unknown = new TreeSet<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            Object underlying = source.getUnderlyingSource();
            if (underlying instanceof SystemEnvironmentPropertySource
                    || (underlying instanceof PropertySource<?> named
                            && StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(named.getName()))
                    || !(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            iterable.filter(ROOT::isAncestorOf).stream()
                    .filter(name -> !FIXTURES.isAncestorOf(name) && !isKnown(name))
                    .forEach(name -> unknown.add(name.toString()));
        }
        if (unknown.isEmpty()) {
            return;
        }
        List<String> problems = new ArrayList<>();
        for (String name : unknown) {
            problems.add(name + " is not a property of the outbox starter"
                    + nearest(name)
                            .map(known -> "; did you mean " + known + "?")
                            .orElse(""));
        }
        throw new InvalidConfigurationException(
                unknown.iterator().next(),
                String.join("; ", problems) + " (the outbox.* properties are listed in docs/spring-boot.md and "
                        + "in the IDE's completion)");
    }

    private static boolean isKnown(ConfigurationPropertyName name) {
        if (ROUTES.isAncestorOf(name)) {
            // outbox.routes[<class>].<field>
            return name.getNumberOfElements() == 4
                    && !name.isNumericIndex(2)
                    && KNOWN.contains("outbox.routes.*." + name.getLastElement(ConfigurationPropertyName.Form.DASHED));
        }
        // a list's entries (outbox.tables[0], as YAML lists bind) belong to the list property
        ConfigurationPropertyName property = name;
        while (property.isLastElementIndexed() && property.isNumericIndex(property.getNumberOfElements() - 1)) {
            property = property.getParent();
        }
        for (String known : KNOWN) {
            if (!known.contains("*") && ConfigurationPropertyName.of(known).equals(property)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The known property most like {@code name}: the same letters and digits first, then the fewest edits;
     * none when even the nearest differs in more than a third of its letters.
     */
    static Optional<String> nearest(String name) {
        String letters = lettersAndDigits(name);
        String nearest = KNOWN.stream()
                .map(known -> known.replace("*", "<event class>"))
                .min(Comparator.comparingInt(known ->
                        lettersAndDigits(known).equals(letters) ? -1 : distance(letters, lettersAndDigits(known))))
                .orElseThrow();
        return distance(letters, lettersAndDigits(nearest)) * 3 <= letters.length()
                ? Optional.of(nearest)
                : Optional.empty();
    }

    private static String lettersAndDigits(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    }

    /** Levenshtein distance. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private static List<String> known() {
        List<String> names = new ArrayList<>();
        collect("outbox", OutboxProperties.class, names);
        return List.copyOf(names);
    }

    private static void collect(String prefix, Class<?> type, List<String> names) {
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            if (property.getReadMethod() == null || property.getName().equals("class")) {
                continue;
            }
            String name = prefix + "." + dashed(property.getName());
            Class<?> valueType = property.getPropertyType();
            if (Map.class.isAssignableFrom(valueType)) {
                collect(name + ".*", OutboxProperties.Route.class, names);
            } else if (valueType.getEnclosingClass() == OutboxProperties.class && !valueType.isEnum()) {
                collect(name, valueType, names);
            } else if (property.getWriteMethod() != null) {
                names.add(name);
            }
        }
    }

    private static String dashed(String camelCase) {
        return camelCase.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
