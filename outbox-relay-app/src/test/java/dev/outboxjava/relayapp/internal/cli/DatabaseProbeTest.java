package dev.outboxjava.relayapp.internal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("A starting worker's database probe")
class DatabaseProbeTest {

    @ParameterizedTest(name = "SQLSTATE {0}: waiting helps = {1}")
    @CsvSource({
        "08001, true", // connection refused, host unknown
        "08006, true", // connection lost
        "57P03, true", // the database system is starting up
        "53300, true", // too many connections
        "28P01, false", // password authentication failed
        "28000, false", // no pg_hba.conf entry
        "3D000, false", // the database does not exist
        "42501, false", // no CONNECT privilege
    })
    @DisplayName("waits for a database that is down, starting or full; not for settings it refuses")
    void waitsOnlyWhenWaitingHelps(String sqlState, boolean waitingHelps) {
        assertThat(DatabaseProbe.waitingHelps(new SQLException("test", sqlState)))
                .isEqualTo(waitingHelps);
    }
}
