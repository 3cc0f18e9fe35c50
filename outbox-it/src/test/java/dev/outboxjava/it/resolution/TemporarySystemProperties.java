package dev.outboxjava.it.resolution;

import java.util.HashMap;
import java.util.Map;

/** Sets system properties for one block and restores the previous values on close. */
final class TemporarySystemProperties implements AutoCloseable {

    private final Map<String, String> previous = new HashMap<>();

    TemporarySystemProperties set(String name, String value) {
        previous.putIfAbsent(name, System.getProperty(name));
        System.setProperty(name, value);
        return this;
    }

    @Override
    public void close() {
        previous.forEach((name, value) -> {
            if (value == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, value);
            }
        });
    }
}
