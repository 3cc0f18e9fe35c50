package dev.outboxjava.relayapp.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The instructions of a Dockerfile's last stage that decide what the container runs, and the image tag
 * its header comment tells users to build.
 */
public record RuntimeStage(
        Map<String, String> environment,
        List<String> entrypoint,
        List<String> command,
        List<String> healthCheck,
        List<String> exposed,
        String user,
        Optional<String> documentedTag) {

    private static final Pattern INSTRUCTION =
            Pattern.compile("^(FROM|ENV|ENTRYPOINT|CMD|HEALTHCHECK|EXPOSE|USER)\\s+(.*)$");
    private static final Pattern ENV_PAIR = Pattern.compile("(\\w+)=(\\S+)");
    private static final Pattern BUILD_TAG = Pattern.compile("docker build -t (\\S+) \\.");
    private static final Pattern NUMERIC_USER = Pattern.compile("(\\d+)(?::(\\d+))?");

    /** The repository's Dockerfile. */
    public static RuntimeStage read(Path dockerfile) throws IOException {
        return parse(Files.readString(dockerfile));
    }

    /** A Dockerfile's text. */
    public static RuntimeStage parse(String dockerfile) {
        List<String> lines = dockerfile.lines().toList();
        Optional<String> tag = lines.stream()
                .map(BUILD_TAG::matcher)
                .filter(Matcher::find)
                .map(matcher -> matcher.group(1))
                .findFirst();
        List<String> instructions = joinContinuations(lines);
        int lastFrom = 0;
        for (int i = 0; i < instructions.size(); i++) {
            if (instructions.get(i).startsWith("FROM ")) {
                lastFrom = i;
            }
        }
        Map<String, String> environment = new LinkedHashMap<>();
        List<String> entrypoint = List.of();
        List<String> command = List.of();
        List<String> healthCheck = List.of();
        List<String> exposed = new ArrayList<>();
        String user = "";
        for (String instruction : instructions.subList(lastFrom, instructions.size())) {
            Matcher matcher = INSTRUCTION.matcher(instruction);
            if (!matcher.matches()) {
                continue;
            }
            String argument = matcher.group(2).trim();
            switch (matcher.group(1)) {
                case "ENV" -> {
                    Matcher pair = ENV_PAIR.matcher(argument);
                    while (pair.find()) {
                        environment.put(pair.group(1), pair.group(2));
                    }
                }
                case "ENTRYPOINT" -> entrypoint = jsonArray(argument);
                case "CMD" -> command = jsonArray(argument);
                case "HEALTHCHECK" -> healthCheck = jsonArray(argument.substring(argument.indexOf("CMD ") + 4));
                case "EXPOSE" -> exposed.addAll(List.of(argument.split("\\s+")));
                case "USER" -> user = argument;
                default -> {}
            }
        }
        return new RuntimeStage(environment, entrypoint, command, healthCheck, exposed, user, tag);
    }

    /** The user id of {@code USER uid[:gid]}; empty when the user is a name (or not set: root). */
    public Optional<Long> uid() {
        Matcher matcher = NUMERIC_USER.matcher(user);
        return matcher.matches() ? Optional.of(Long.parseLong(matcher.group(1))) : Optional.empty();
    }

    /** The group id of {@code USER uid:gid}; empty when absent or a name. */
    public Optional<Long> gid() {
        Matcher matcher = NUMERIC_USER.matcher(user);
        return matcher.matches() && matcher.group(2) != null
                ? Optional.of(Long.parseLong(matcher.group(2)))
                : Optional.empty();
    }

    /** {@code java.io.tmpdir} of the entrypoint's JVM: the JVM's default unless the entrypoint sets it. */
    public String javaTmpDir() {
        return entrypoint.stream()
                .filter(arg -> arg.startsWith("-Djava.io.tmpdir="))
                .map(arg -> arg.substring("-Djava.io.tmpdir=".length()))
                .findFirst()
                .orElse("/tmp");
    }

    private static List<String> joinContinuations(List<String> lines) {
        List<String> instructions = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : lines) {
            String trimmed = line.strip();
            if (trimmed.startsWith("#") || trimmed.isEmpty() && current.length() == 0) {
                continue;
            }
            boolean continues = trimmed.endsWith("\\");
            current.append(continues ? trimmed.substring(0, trimmed.length() - 1) : trimmed)
                    .append(' ');
            if (!continues) {
                instructions.add(current.toString().strip());
                current.setLength(0);
            }
        }
        return instructions;
    }

    /** Exec form only: a shell form would put {@code sh -c} between the signal and the JVM. */
    private static List<String> jsonArray(String argument) {
        try {
            List<String> values = new ArrayList<>();
            new ObjectMapper().readTree(argument).forEach(node -> values.add(node.asText()));
            return values;
        } catch (IOException e) {
            throw new AssertionError("not in exec (JSON array) form: " + argument, e);
        }
    }
}
