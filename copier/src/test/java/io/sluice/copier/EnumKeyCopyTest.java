package io.sluice.copier;

import io.sluice.copier.Source.Engine;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * ENUM and SET key columns: the server sorts them by their index (declaration order / bit value), not by their
 * text, so keyset bounds must compare the index too. Declared out of alphabetical order, a text bound skips
 * whole key ranges.
 */
class EnumKeyCopyTest {

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"MARIADB", "MYSQL"})
    void enumAndSetKeysAreCopiedCompletely(Engine engine) throws Exception {
        Source src = CopierTest.source(engine);
        String[][] tables = {
                // 5,000 'b' then 5,000 'a': 'b' sorts first (index 1) but is greater as text.
                {"k_enum", "e enum('b','a') NOT NULL, id int NOT NULL, v int, PRIMARY KEY (e, id)",
                        "SELECT IF(seq <= 5000, 'b', 'a'), seq, seq FROM " + src.series(10_000)},
                {"k_enum_only", "e enum('zeta','alpha','mid','Beta') NOT NULL PRIMARY KEY, v int",
                        "SELECT ELT(seq, 'zeta','alpha','mid','Beta'), seq FROM " + src.series(4)},
                // SET sorts by its bit value: 'y' (1) < 'x' (2) < 'x,y' (3) < 'w' (4) ...
                {"k_set", "s set('y','x','w') NOT NULL, id int NOT NULL, PRIMARY KEY (s, id)",
                        "SELECT ELT(1 + seq % 7, 'y', 'x', 'x,y', 'w', 'y,w', 'x,w', 'y,x,w'), seq FROM " + src.series(3000)},
                // With a case-insensitive text column the key order is asked of the server: the ENUM must compare by number there too.
                {"k_enum_ci", "e enum('b','a') NOT NULL, s varchar(10) COLLATE utf8mb4_general_ci NOT NULL, PRIMARY KEY (e, s)",
                        "SELECT IF(seq <= 1500, 'b', 'a'), CONCAT(IF(seq % 2 = 0, 'K', 'k'), seq) FROM " + src.series(3000)}};
        for (String[] t : tables) {
            TableId id = src.table(t[0]);
            src.exec("DROP TABLE IF EXISTS " + src.qualified(id), "CREATE TABLE " + src.qualified(id) + " (" + t[1] + ")",
                    "INSERT INTO " + src.qualified(id) + " " + t[2]);
            CopyCheck.Result result = CopierTest.copy(src, id, CopierTest.config(97, Map.of()), Throttler.none());
            assertThat(result.rows()).as(t[0] + " rows copied").hasSameSizeAs(src.rows(src.describe(id)));
            CopierTest.assertSameRows(src.rows(src.describe(id)), result.rows());
        }
        TableDef def = src.describe(src.table("k_enum_ci"));
        try (CopierTest.AutoCloseableOrder order = new CopierTest.AutoCloseableOrder(src.dialect.keyOrder(def, src.factory))) {
            assertThat(order.order().compare(new Object[] {"b", "z"}, new Object[] {"a", "a"})).isNegative();
            assertThat(order.order().locate(List.<Object[]>of(new Object[] {"a", "k1"}),
                    List.<Object[]>of(new Object[] {"b", "z"}, new Object[] {"a", "K1"}))).containsExactly(1);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Engine.class, names = {"MARIADB"})
    void enumKeyDeclaringTheEmptyStringIsRefusedByName(Engine engine) {
        Source src = CopierTest.source(engine);
        TableId id = src.table("k_enum_empty");
        src.exec("DROP TABLE IF EXISTS " + src.qualified(id), "CREATE TABLE " + src.qualified(id) + " (e enum('','a') PRIMARY KEY)");
        assertThatThrownBy(() -> src.describe(id)).isInstanceOf(PlanException.class)
                .hasMessageContaining(id + ".e").hasMessageContaining("remove the '' member");
    }
}
