package io.sluice.alter;

import io.sluice.spi.model.TableId;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** PostgreSQL: the online alter under a concurrent workload, its cut-over, revert window, revert and cleanup. */
class PostgresAlterTest {

    @Test
    void alterUnderWritesThenRevertLosesNoAcknowledgedWrite() throws Exception {
        PostgresServer pg = TestServers.postgres();
        String name = pg.createDatabase("alter_pg");
        Database db = new Database(pg.jdbcUrl(name), pg.user(), pg.password());
        AlterScenario.run(db, new TableId("public", "accounts"),
                "ADD COLUMN flag boolean NOT NULL DEFAULT false, DROP COLUMN legacy, ALTER COLUMN note TYPE varchar(50), "
                        + "ALTER COLUMN balance TYPE numeric(30,0)");
    }
}
