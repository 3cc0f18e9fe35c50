package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.relayapp.ConfigKey;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code keys}: prints the configuration key table. */
@Command(
        name = "keys",
        mixinStandardHelpOptions = true,
        description = "Prints every configuration key: property, environment variable, default, meaning (Markdown).")
public final class KeysCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getOut().print(ConfigKey.markdownTable());
        spec.commandLine().getOut().flush();
        return ExitCodes.OK;
    }
}
