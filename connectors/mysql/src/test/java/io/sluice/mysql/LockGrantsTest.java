package io.sluice.mysql;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Reading SHOW GRANTS for LOCK TABLES on one database, as MySQL 8/9 and MariaDB print it. */
class LockGrantsTest {

    @Test
    void aGrantCountsOnlyOnTheDatabasesItNames() {
        List<String> mariaDefault = List.of(
                "GRANT SELECT, REPLICATION SLAVE, BINLOG MONITOR ON *.* TO `u`@`%` IDENTIFIED BY PASSWORD '*D82'",
                "GRANT SELECT, INSERT, LOCK TABLES, CREATE VIEW ON `test`.* TO PUBLIC",
                "GRANT SELECT, INSERT, LOCK TABLES, CREATE VIEW ON `test\\_%`.* TO PUBLIC");
        assertThat(LockGrants.granted(mariaDefault, "shop")).isFalse();
        assertThat(LockGrants.granted(mariaDefault, "test")).isTrue();
        assertThat(LockGrants.granted(mariaDefault, "test_1")).isTrue();
        assertThat(LockGrants.granted(mariaDefault, "testx1")).as("an escaped _ is a literal").isFalse();
    }

    @Test
    void globalAllWildcardsQuotingAndTableGrants() {
        assertThat(LockGrants.granted(List.of("GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, "
                + "LOCK TABLES ON *.* TO `cdc`@`%`"), "any")).isTrue();
        assertThat(LockGrants.granted(List.of("GRANT ALL PRIVILEGES ON `shop`.* TO `u`@`%`"), "shop")).isTrue();
        assertThat(LockGrants.granted(List.of("GRANT ALL ON shop.* TO u@'%'"), "shop")).isTrue();
        assertThat(LockGrants.granted(List.of("GRANT LOCK TABLES ON `sh%`.* TO `u`@`%`"), "shop")).isTrue();
        assertThat(LockGrants.granted(List.of("GRANT LOCK TABLES ON `my db``s`.* TO `u`@`%`"), "my db`s")).isTrue();
        assertThat(LockGrants.granted(List.of("GRANT SELECT, LOCK TABLES ON `shop`.`t` TO `u`@`%`"), "shop"))
                .as("LOCK TABLES is granted per database, never per table").isFalse();
        assertThat(LockGrants.granted(List.of("GRANT USAGE ON *.* TO `u`@`%`", "GRANT SELECT ON `shop`.* TO `u`@`%`"), "shop")).isFalse();
        assertThat(LockGrants.granted(List.of("GRANT PROXY ON ''@'' TO 'root'@'localhost' WITH GRANT OPTION"), "shop")).isFalse();
    }

    @Test
    void aRoleHidesItsPrivilegesSoTheUserIsNotRefused() {
        assertThat(LockGrants.granted(List.of("GRANT USAGE ON *.* TO `u`@`%`", "GRANT `copier`@`%` TO `u`@`%`"), "shop")).isTrue();
    }
}
