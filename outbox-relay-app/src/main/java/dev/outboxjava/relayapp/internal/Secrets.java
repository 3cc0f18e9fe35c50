package dev.outboxjava.relayapp.internal;

import java.util.regex.Pattern;

/**
 * Keeps secrets out of logs, command output and exception messages: a setting whose name says it
 * holds a secret is shown as {@value #MASK}, and URLs and JAAS configurations have their passwords
 * replaced wherever they are printed.
 */
public final class Secrets {

    /** What a secret is shown as. */
    public static final String MASK = "***";

    private static final Pattern SECRET_NAME =
            Pattern.compile("(?i).*(password|passwd|secret|token|credential|jaas\\.config|ssl\\.keystore\\.key).*");
    /** {@code scheme://user:password@host}: the password part of a URL's user information. */
    private static final Pattern USER_INFO_PASSWORD = Pattern.compile("(//[^/@:?#\\s]*:)[^/@\\s]*@");
    /** {@code ?password=x}, {@code &sslpassword=x}, {@code ;token=x}: secret parameters of a URL. */
    private static final Pattern SECRET_PARAMETER =
            Pattern.compile("(?i)([?&;][^&#;=\\s]*(?:password|passwd|secret|token)[^&#;=\\s]*=)[^&#;\\s]*");
    /** {@code password="x"} in a JAAS configuration or any {@code name=value} text. */
    private static final Pattern SECRET_ASSIGNMENT = Pattern.compile(
            "(?i)(\\b[\\w.-]*(?:password|passwd|secret|token)[\\w.-]*\\s*=\\s*)(\"[^\"]*\"|'[^']*'|[^\\s;,&\"']+)");

    private Secrets() {}

    /** Whether a setting of this name holds a secret (password, secret, token, JAAS configuration, private key). */
    public static boolean isSecretName(String name) {
        return SECRET_NAME.matcher(name).matches();
    }

    /** The value as it may be shown: {@value #MASK} for a secret setting, else the value with embedded passwords masked. */
    public static String show(String name, String value) {
        if (isSecretName(name)) {
            return value.isEmpty() ? "" : MASK;
        }
        return maskText(value);
    }

    /**
     * The text with every password it carries masked: in URLs ({@code //user:***@host},
     * {@code ?password=***}) and in {@code name=value} pairs whose name says secret (a JAAS
     * {@code password="***"}).
     */
    public static String maskText(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String masked = USER_INFO_PASSWORD.matcher(text).replaceAll("$1" + MASK + "@");
        masked = SECRET_PARAMETER.matcher(masked).replaceAll("$1" + MASK);
        return SECRET_ASSIGNMENT.matcher(masked).replaceAll("$1" + MASK);
    }

    /** The text with {@code secret} itself masked too, for messages that may quote a value. */
    public static String maskText(String text, String secret) {
        String masked = maskText(text);
        if (masked == null || secret == null || secret.length() < 3) {
            return masked;
        }
        return masked.replace(secret, MASK);
    }
}
