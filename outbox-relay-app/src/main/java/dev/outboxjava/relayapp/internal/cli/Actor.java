package dev.outboxjava.relayapp.internal.cli;

import java.util.Optional;

/**
 * Who a command acts as, for the audit trail: the name given with {@code --by}, else the operating
 * system's user, marked as coming from the command line (the console marks its own the same way).
 */
final class Actor {

    private Actor() {}

    /** {@code "<name> (cli)"}: {@code by} when given, else the OS user ({@code unknown} if none). */
    static String of(String by) {
        String name = Optional.ofNullable(by)
                .map(String::strip)
                .filter(value -> !value.isEmpty())
                .or(() -> Optional.ofNullable(System.getProperty("user.name")).filter(value -> !value.isBlank()))
                .orElse("unknown");
        return name + " (cli)";
    }
}
