package io.sluice.verify;

import io.sluice.testkit.DatabaseServer;
import io.sluice.testkit.TestServers;

/** {@link MariaDbVerifyTest}'s tests on MySQL: the same row hash and lookups must work there (MySQL 9 has no MD5()). */
class MySqlVerifyTest extends MariaDbVerifyTest {
    @Override
    DatabaseServer server() {
        return TestServers.mysql();
    }
}
