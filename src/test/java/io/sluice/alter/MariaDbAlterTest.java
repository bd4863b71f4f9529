package io.sluice.alter;

import io.sluice.spi.model.TableId;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The MariaDB/MySQL family: the online alter under a concurrent workload (sentry cut-over), revert window, revert
 * and cleanup. The same scenario on MariaDB and on MySQL 8+/9 (its own binlog status statement and GTID sets).
 */
class MariaDbAlterTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"mariadb", "mysql"})
    void alterUnderWritesThenRevertLosesNoAcknowledgedWrite(String engine) throws Exception {
        Database db = AlterKit.database(engine, "alter_" + engine);
        AlterScenario.run(db, new TableId(AlterKit.schema(db), "accounts"),
                "ADD COLUMN flag tinyint(1) NOT NULL DEFAULT 0, DROP COLUMN legacy, MODIFY note varchar(50), MODIFY balance decimal(30,0) NOT NULL");
    }
}
