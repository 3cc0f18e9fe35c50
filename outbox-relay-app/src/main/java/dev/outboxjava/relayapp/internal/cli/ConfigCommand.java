package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.relayapp.ConfigKey;
import dev.outboxjava.relayapp.ConfigSource;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.relayapp.internal.Secrets;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code config}: the effective settings, secrets masked. */
@Command(
        name = "config",
        mixinStandardHelpOptions = true,
        description = {
            "Checks the settings and prints the effective value of every key, then the broker client "
                    + "properties given under outbox.kafka.* and outbox.rabbitmq.*; '(default)' marks a value nobody set.",
            "Passwords, secrets, tokens and JAAS configurations are shown as ***, also inside URLs.",
            "Connects to nothing."
        })
public final class ConfigCommand implements Callable<Integer> {

    @Mixin
    ConfigOptions config;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        ConfigSource source = config.source();
        RelayAppConfig settings = config.load();
        PrintWriter out = spec.commandLine().getOut();
        int width = 0;
        for (ConfigKey key : ConfigKey.values()) {
            width = Math.max(width, key.property().length());
        }
        for (String prefix : ConfigKey.PASS_THROUGH_PREFIXES) {
            for (String name : source.passThrough(prefix).keySet()) {
                width = Math.max(width, prefix.length() + name.length());
            }
        }
        for (ConfigKey key : ConfigKey.values()) {
            Optional<String> value = source.get(key);
            out.printf(
                    "%-" + width + "s  %s%s%n",
                    key.property(),
                    Secrets.show(key.property(), value.orElseGet(() -> unsetValue(key, settings))),
                    value.isEmpty() ? "  (default)" : "");
        }
        for (String prefix : ConfigKey.PASS_THROUGH_PREFIXES) {
            for (Map.Entry<String, String> entry : source.passThrough(prefix).entrySet()) {
                out.printf(
                        "%-" + width + "s  %s%n",
                        prefix + entry.getKey(),
                        Secrets.show(entry.getKey(), entry.getValue()));
            }
        }
        out.flush();
        return ExitCodes.OK;
    }

    /** What an unset key stands for: its default, except the batch size's, which follows the ordering. */
    private static String unsetValue(ConfigKey key, RelayAppConfig settings) {
        return key == ConfigKey.RELAY_BATCH_SIZE
                ? String.valueOf(settings.worker().relay().batchSize())
                : key.defaultValue();
    }
}
