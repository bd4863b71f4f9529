package io.sluice.testkit;

import org.junit.jupiter.api.Test;

import java.sql.Connection;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs where a Docker engine answers; elsewhere JUnit reports it skipped with "needs Docker: ...". */
class DockerServersTest {

    @Test
    void mysql8FromDocker() throws Exception {
        DatabaseServer mysql = TestServers.mysql8();
        String db = mysql.createDatabase("docker_mysql");
        try (Connection c = mysql.connect(db)) {
            assertThat(c.isValid(5)).isTrue();
        }
        assertThat(mysql.version()).startsWith("8.");
    }
}
