package dev.outboxjava.core;

/**
 * A setting has a value the library cannot work with. {@link #setting()} names the setting (the
 * builder method or configuration key) so it can be found and fixed.
 */
public final class InvalidConfigurationException extends OutboxException {

    private static final long serialVersionUID = 1L;

    private final String setting;
    private final String reason;

    public InvalidConfigurationException(String setting, String reason) {
        super("invalid outbox setting '" + setting + "': " + reason);
        this.setting = setting;
        this.reason = reason;
    }

    /** The name of the offending setting. */
    public String setting() {
        return setting;
    }

    /** What is wrong with the value and what is accepted, without the setting's name. */
    public String reason() {
        return reason;
    }
}
