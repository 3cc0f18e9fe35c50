package dev.outboxjava.relayapp;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.relayapp.internal.PortInUseException;
import dev.outboxjava.relayapp.internal.Secrets;
import dev.outboxjava.relayapp.internal.cli.ConfigCommand;
import dev.outboxjava.relayapp.internal.cli.DatabaseUnreachableException;
import dev.outboxjava.relayapp.internal.cli.DeadLettersCommand;
import dev.outboxjava.relayapp.internal.cli.ExitCodes;
import dev.outboxjava.relayapp.internal.cli.KeysCommand;
import dev.outboxjava.relayapp.internal.cli.PurgeCommand;
import dev.outboxjava.relayapp.internal.cli.RetriesCommand;
import dev.outboxjava.relayapp.internal.cli.RunCommand;
import dev.outboxjava.relayapp.internal.cli.SchemaCommand;
import dev.outboxjava.relayapp.internal.cli.StatusCommand;
import dev.outboxjava.worker.InvalidSettingsException;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code outbox-worker} command line: {@code run}, {@code status}, {@code dead-letters},
 * {@code retries}, {@code purge}, {@code schema}, {@code keys}, {@code config}. Exit codes: 0 done,
 * 1 operation failed, 2 wrong usage or settings (a missing outbox table and a taken HTTP port
 * included), 3 database unreachable, 4 {@code status} says not ready.
 */
@Command(
        name = "outbox-worker",
        mixinStandardHelpOptions = true,
        versionProvider = OutboxCli.Version.class,
        description = {
            "Relays the transactional outbox from PostgreSQL to Kafka or RabbitMQ, and answers an operator.",
            "Settings: OUTBOX_* environment variables or a --config properties file (list: outbox-worker keys).",
            "Broker clients: any Kafka producer property as OUTBOX_KAFKA_<PROPERTY>, any RabbitMQ connection "
                    + "setting as OUTBOX_RABBITMQ_<SETTING> (effective values, secrets masked: outbox-worker config)."
        },
        subcommands = {
            RunCommand.class,
            StatusCommand.class,
            DeadLettersCommand.class,
            RetriesCommand.class,
            PurgeCommand.class,
            SchemaCommand.class,
            KeysCommand.class,
            ConfigCommand.class,
            CommandLine.HelpCommand.class
        })
public final class OutboxCli implements Callable<Integer> {

    /** The standalone process's logging configuration (INFO, one line per state change, on stderr). */
    static final String LOGBACK_RESOURCE = "outbox-worker-logback.xml";

    @Spec
    CommandSpec spec;

    /** Runs the command line and exits the JVM with its exit code. */
    public static void main(String[] args) {
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", LOGBACK_RESOURCE);
        }
        int code = execute(args);
        if (code != ExitCodes.OK || !isRun(args)) {
            System.exit(code);
        }
    }

    private static boolean isRun(String[] args) {
        return args.length > 0 && args[0].equals("run");
    }

    /** Runs the command line and returns its exit code (for tests and embedding). */
    public static int execute(String... args) {
        return commandLine().execute(args);
    }

    /** The configured picocli command line (output streams may be replaced for tests). */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new OutboxCli());
        documentExitCodes(commandLine);
        commandLine.setExecutionExceptionHandler((exception, cmd, parseResult) -> {
            int code = exitCode(exception);
            String message =
                    Secrets.maskText(exception.getMessage() != null ? exception.getMessage() : exception.toString());
            cmd.getErr().println("error: " + message);
            if (code == ExitCodes.FAILED && !(exception instanceof dev.outboxjava.core.OutboxException)) {
                LoggerFactory.getLogger(OutboxCli.class).error("{} failed", cmd.getCommandName(), exception);
            }
            cmd.getErr().flush();
            return code;
        });
        return commandLine;
    }

    /** Every command's {@code --help} ends with the exit codes. */
    private static void documentExitCodes(CommandLine commandLine) {
        commandLine
                .getCommandSpec()
                .usageMessage()
                .exitCodeListHeading("%nExit codes:%n")
                .exitCodeList(ExitCodes.descriptions());
        commandLine.getSubcommands().values().forEach(OutboxCli::documentExitCodes);
    }

    static int exitCode(Throwable exception) {
        if (exception instanceof InvalidSettingsException
                || exception instanceof InvalidConfigurationException
                || exception instanceof PortInUseException) {
            return ExitCodes.USAGE;
        }
        if (exception instanceof DatabaseUnreachableException) {
            return ExitCodes.DATABASE_UNREACHABLE;
        }
        if (exception instanceof OutboxStoreException && isConnectionFailure(exception)) {
            return ExitCodes.DATABASE_UNREACHABLE;
        }
        return ExitCodes.FAILED;
    }

    private static boolean isConnectionFailure(Throwable exception) {
        for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql
                    && sql.getSQLState() != null
                    && sql.getSQLState().startsWith("08")) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    /** The version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = OutboxCli.class.getPackage().getImplementationVersion();
            return new String[] {"outbox-worker " + (version != null ? version : "(development build)")};
        }
    }
}
