package dev.outboxjava.worker;

import dev.outboxjava.core.OutboxException;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The worker's settings cannot be used. Carries EVERY problem found, each naming its key, so an
 * operator fixes them in one go instead of one restart per typo.
 */
public final class InvalidSettingsException extends OutboxException {

    private static final long serialVersionUID = 1L;

    private final List<Problem> problems;

    public InvalidSettingsException(List<Problem> problems) {
        super(format(problems));
        this.problems = List.copyOf(problems);
    }

    /** What is wrong, one entry per key. */
    public List<Problem> problems() {
        return problems;
    }

    private static String format(List<Problem> problems) {
        return "invalid outbox settings (" + problems.size() + " problem" + (problems.size() == 1 ? "" : "s") + "):\n"
                + problems.stream()
                        .map(problem -> "  - " + problem.key() + ": " + problem.reason())
                        .collect(Collectors.joining("\n"));
    }

    /**
     * One unusable setting.
     *
     * @param key    the key as the user wrote it (or both spellings)
     * @param reason what is wrong and what is accepted
     */
    public record Problem(String key, String reason) {
        public Problem {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(reason, "reason");
        }
    }
}
