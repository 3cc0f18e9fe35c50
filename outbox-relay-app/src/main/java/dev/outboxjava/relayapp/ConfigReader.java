package dev.outboxjava.relayapp;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.worker.Durations;
import dev.outboxjava.worker.InvalidSettingsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Reads one key at a time through the {@link ConfigKey} table: a value that does not parse becomes a
 * problem naming its key, and the key's default stands in, so that every problem of a configuration
 * is found in one pass and reported at once.
 */
final class ConfigReader {

    private final ConfigSource source;
    private final List<InvalidSettingsException.Problem> problems = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();

    ConfigReader(ConfigSource source) {
        this.source = Objects.requireNonNull(source, "source");
    }

    ConfigSource source() {
        return source;
    }

    void rejectUnknownKeys() {
        source.unknownKeys()
                .forEach(
                        unknown -> problems.add(
                                new InvalidSettingsException.Problem(
                                        unknown,
                                        "unknown setting; known keys are listed by 'outbox-worker keys' and in docs/configuration.md (typo?)")));
    }

    /** A value that is accepted but should be changed: said once at start, not refused. */
    void warning(ConfigKey key, String reason) {
        warnings.add(key.displayName() + ": " + reason);
    }

    List<String> warnings() {
        return List.copyOf(warnings);
    }

    void problem(ConfigKey key, String reason) {
        problems.add(new InvalidSettingsException.Problem(key.displayName(), reason));
    }

    /** How many problems were found so far, to tell whether one check added any. */
    int problemCount() {
        return problems.size();
    }

    void problems(List<InvalidSettingsException.Problem> more) {
        problems.addAll(more);
    }

    /** A problem with a key under a pass-through prefix, named in both spellings. */
    void passThroughProblem(String prefix, String name, String reason) {
        String property = prefix + name;
        problems.add(new InvalidSettingsException.Problem(property + " (" + ConfigKey.envName(property) + ")", reason));
    }

    /** @throws InvalidSettingsException listing every problem found so far, once each */
    void throwIfProblems() {
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems.stream().distinct().toList());
        }
    }

    String string(ConfigKey key) {
        return source.get(key).orElse(key.defaultValue());
    }

    int integer(ConfigKey key, int min, int max) {
        return integer(key, min, max, Integer.parseInt(key.defaultValue()));
    }

    /** A whole number, or {@code fallback} when the key is not set (or a problem). */
    int integer(ConfigKey key, int min, int max, int fallback) {
        Optional<String> set = source.get(key);
        if (set.isEmpty()) {
            return fallback;
        }
        String value = set.get();
        try {
            int parsed = Integer.parseInt(value.replace("_", ""));
            if (parsed < min || parsed > max) {
                problem(key, "must be between " + min + " and " + max + ", was " + parsed);
                return fallback;
            }
            return parsed;
        } catch (NumberFormatException e) {
            problem(key, "must be a whole number, was '" + value + "'");
            return fallback;
        }
    }

    double decimal(ConfigKey key) {
        String value = string(key);
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            problem(key, "must be a number, was '" + value + "'");
            return Double.parseDouble(key.defaultValue());
        }
    }

    boolean bool(ConfigKey key) {
        String value = string(key).toLowerCase(Locale.ROOT);
        if (value.equals("true") || value.equals("false")) {
            return Boolean.parseBoolean(value);
        }
        problem(key, "must be true or false, was '" + value + "'");
        return Boolean.parseBoolean(key.defaultValue());
    }

    /** A duration; one too long for the loops to wait is a problem of its key like any other. */
    Duration duration(ConfigKey key) {
        String value = string(key);
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException e) {
            problem(key, e.getMessage());
            return Durations.parse(key.defaultValue());
        }
    }

    <T> T choice(ConfigKey key, T fallback, Function<String, Optional<T>> parser, String accepted) {
        String value = string(key);
        Optional<T> parsed = parser.apply(value.toLowerCase(Locale.ROOT));
        if (parsed.isEmpty()) {
            problem(key, "must be one of " + accepted + ", was '" + value + "'");
            return fallback;
        }
        return parsed.get();
    }

    <T> Optional<T> optionalChoice(ConfigKey key, Function<String, Optional<T>> parser, String accepted) {
        Optional<String> value = source.get(key);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        Optional<T> parsed = parser.apply(value.get());
        if (parsed.isEmpty()) {
            problem(key, "must be one of " + accepted + ", was '" + value.get() + "'");
        }
        return parsed;
    }

    /** Runs a builder's validation; its reason is kept, re-labelled with our key. */
    void check(ConfigKey key, Runnable validation) {
        try {
            validation.run();
        } catch (InvalidConfigurationException e) {
            problem(key, e.reason());
        }
    }

    /** Builds a core configuration object; its own reason is kept, re-labelled with our key. */
    <T> T build(ConfigKey key, Supplier<T> factory, T fallback) {
        try {
            return factory.get();
        } catch (InvalidConfigurationException e) {
            problem(keyFor(e.setting(), key), e.reason());
            return fallback;
        }
    }

    /** The core names its settings {@code relay.batchSize}; point the operator at our key instead. */
    private static ConfigKey keyFor(String coreSetting, ConfigKey fallback) {
        return switch (coreSetting) {
            case "relay.batchSize" -> ConfigKey.RELAY_BATCH_SIZE;
            case "relay.publishTimeout" -> ConfigKey.RELAY_PUBLISH_TIMEOUT;
            case "retry.initialDelay" -> ConfigKey.RETRY_INITIAL_DELAY;
            case "retry.multiplier" -> ConfigKey.RETRY_MULTIPLIER;
            case "retry.maxDelay" -> ConfigKey.RETRY_MAX_DELAY;
            case "retry.jitter" -> ConfigKey.RETRY_JITTER;
            case "sweeper.leaseTimeout" -> ConfigKey.SWEEPER_LEASE_TIMEOUT;
            case "sweeper.chunkSize" -> ConfigKey.SWEEPER_CHUNK_SIZE;
            case "cleaner.retention" -> ConfigKey.CLEANER_RETENTION;
            case "cleaner.chunkSize" -> ConfigKey.CLEANER_CHUNK_SIZE;
            case "HealthConfig.maxLag" -> ConfigKey.HEALTH_MAX_LAG;
            case "HealthConfig.maxXminAge" -> ConfigKey.HEALTH_MAX_XMIN_AGE;
            default -> fallback;
        };
    }
}
