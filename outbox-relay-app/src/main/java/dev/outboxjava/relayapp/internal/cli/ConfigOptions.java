package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.relayapp.ConfigSource;
import dev.outboxjava.relayapp.RelayAppConfig;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/** The {@code --config} option every command shares. */
public final class ConfigOptions {

    private static final Logger log = LoggerFactory.getLogger(ConfigOptions.class);

    @Option(
            names = {"-c", "--config"},
            paramLabel = "FILE",
            description = "Properties file with outbox.* keys (outbox.db.url=...). OUTBOX_* environment "
                    + "variables override it. Without it, only environment variables are read.")
    Path configFile;

    /** Where the settings come from: the environment, over the file if one was given. */
    public ConfigSource source() {
        ConfigSource environment = ConfigSource.environment();
        return configFile == null ? environment : environment.overriding(ConfigSource.file(configFile));
    }

    /**
     * The settings from the file (if any) and the environment; the environment wins. Settings the
     * command needs are checked in the same pass, so one run reports every problem.
     */
    public RelayAppConfig load(RelayAppConfig.Requirement... required) {
        RelayAppConfig settings = RelayAppConfig.load(source(), required);
        LogLevel.apply(settings.logLevel());
        settings.warnings().forEach(warning -> log.warn("setting {}", warning));
        return settings;
    }
}
