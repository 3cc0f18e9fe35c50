package dev.outboxjava.relayapp;

import dev.outboxjava.worker.InvalidSettingsException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Where setting values come from: one lookup per {@link ConfigKey}, plus the keys present in the
 * source that the table does not know (reported as errors at start). Blank values count as unset.
 *
 * <p>Ready-made sources: {@link #environment()}, {@link #properties(Properties, String)},
 * {@link #file(Path)}, {@link #map(Map)}, and {@link #overriding(ConfigSource)} to layer two.
 */
public interface ConfigSource {

    /** The raw value of {@code key}, if this source sets it. */
    Optional<String> get(ConfigKey key);

    /**
     * Keys with the outbox prefix that are neither in the {@link ConfigKey} table nor under one of
     * its {@linkplain ConfigKey#PASS_THROUGH_PREFIXES pass-through prefixes}, spelled as in the source.
     */
    List<String> unknownKeys();

    /**
     * The keys under a {@linkplain ConfigKey#PASS_THROUGH_PREFIXES pass-through prefix} that are not
     * in the {@link ConfigKey} table, named without the prefix in the client's own spelling:
     * {@code outbox.kafka.max.block.ms} and {@code OUTBOX_KAFKA_MAX_BLOCK_MS} both become
     * {@code max.block.ms}. Blank values count as unset. Sources that have none return an empty map.
     *
     * @param propertyPrefix one of {@link ConfigKey#PASS_THROUGH_PREFIXES}, e.g. {@code outbox.kafka.}
     */
    default Map<String, String> passThrough(String propertyPrefix) {
        return Map.of();
    }

    /** Where the values come from, for messages. */
    String describe();

    /** A source where {@code this} wins over {@code fallback} key by key; unknown keys of both are reported. */
    default ConfigSource overriding(ConfigSource fallback) {
        ConfigSource first = this;
        Objects.requireNonNull(fallback, "fallback");
        return new ConfigSource() {
            @Override
            public Optional<String> get(ConfigKey key) {
                Optional<String> value = first.get(key);
                return value.isPresent() ? value : fallback.get(key);
            }

            @Override
            public List<String> unknownKeys() {
                List<String> unknown = new ArrayList<>(first.unknownKeys());
                unknown.addAll(fallback.unknownKeys());
                return unknown;
            }

            @Override
            public Map<String, String> passThrough(String propertyPrefix) {
                Map<String, String> merged = new TreeMap<>(fallback.passThrough(propertyPrefix));
                merged.putAll(first.passThrough(propertyPrefix));
                return merged;
            }

            @Override
            public String describe() {
                return first.describe() + ", then " + fallback.describe();
            }
        };
    }

    /** The process environment ({@code OUTBOX_DB_URL}, ...). */
    static ConfigSource environment() {
        return environment(System.getenv());
    }

    /** Environment-style variables from a map ({@code OUTBOX_RELAY_BATCH_SIZE=100}); other variables are ignored. */
    static ConfigSource environment(Map<String, String> variables) {
        Map<String, String> copy = new TreeMap<>(variables);
        return new ConfigSource() {
            @Override
            public Optional<String> get(ConfigKey key) {
                return nonBlank(copy.get(key.env()));
            }

            @Override
            public List<String> unknownKeys() {
                return copy.keySet().stream()
                        .filter(name -> name.startsWith(ConfigKey.ENV_PREFIX))
                        .filter(name -> !name.startsWith(ConfigKey.RESERVED_ENV_PREFIX))
                        .filter(name -> ConfigKey.byEnv(name).isEmpty())
                        .filter(name -> !ConfigKey.isPassThroughEnv(name))
                        .toList();
            }

            @Override
            public Map<String, String> passThrough(String propertyPrefix) {
                String envPrefix = ConfigKey.envName(propertyPrefix);
                Map<String, String> found = new TreeMap<>();
                copy.forEach((name, value) -> {
                    if (name.startsWith(envPrefix)
                            && name.length() > envPrefix.length()
                            && ConfigKey.byEnv(name).isEmpty()) {
                        nonBlank(value)
                                .ifPresent(v -> found.put(
                                        name.substring(envPrefix.length())
                                                .toLowerCase(java.util.Locale.ROOT)
                                                .replace('_', '.'),
                                        v));
                    }
                });
                return found;
            }

            @Override
            public String describe() {
                return "environment variables";
            }
        };
    }

    /** Properties-style keys ({@code outbox.db.url}); keys without the {@code outbox.} prefix are ignored. */
    static ConfigSource properties(Properties properties, String origin) {
        Map<String, String> copy = new TreeMap<>();
        properties.stringPropertyNames().forEach(name -> copy.put(name.trim(), properties.getProperty(name)));
        return new ConfigSource() {
            @Override
            public Optional<String> get(ConfigKey key) {
                return nonBlank(copy.get(key.property()));
            }

            @Override
            public List<String> unknownKeys() {
                return copy.keySet().stream()
                        .filter(name -> name.startsWith(ConfigKey.PROPERTY_PREFIX))
                        .filter(name -> ConfigKey.byProperty(name).isEmpty())
                        .filter(name -> !ConfigKey.isPassThrough(name))
                        .toList();
            }

            @Override
            public Map<String, String> passThrough(String propertyPrefix) {
                Map<String, String> found = new TreeMap<>();
                copy.forEach((name, value) -> {
                    if (name.startsWith(propertyPrefix)
                            && name.length() > propertyPrefix.length()
                            && ConfigKey.byProperty(name).isEmpty()) {
                        nonBlank(value).ifPresent(v -> found.put(name.substring(propertyPrefix.length()), v));
                    }
                });
                return found;
            }

            @Override
            public String describe() {
                return origin;
            }
        };
    }

    /** Properties-style keys from a map (tests, programmatic setups). */
    static ConfigSource map(Map<String, String> values) {
        Properties properties = new Properties();
        properties.putAll(values);
        return properties(properties, "settings map");
    }

    /**
     * A properties file ({@code outbox.db.url=jdbc:postgresql://...}).
     *
     * @throws InvalidSettingsException when the file cannot be read
     */
    static ConfigSource file(Path path) {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(path)) {
            properties.load(in);
        } catch (NoSuchFileException e) {
            throw new InvalidSettingsException(List.of(new InvalidSettingsException.Problem(
                    "--config", "file " + path.toAbsolutePath() + " does not exist")));
        } catch (IOException | IllegalArgumentException e) {
            throw new InvalidSettingsException(List.of(new InvalidSettingsException.Problem(
                    "--config", "cannot read " + path.toAbsolutePath() + ": " + e.getMessage())));
        }
        return properties(properties, "file " + path);
    }

    private static Optional<String> nonBlank(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }
}
