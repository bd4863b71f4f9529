package io.sluice.applier;

import io.sluice.spi.dialect.KeyComparators;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.model.ValueKind;
import io.sluice.spi.position.BinlogEventPosition;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Binlog coordinates that go back inside a partition (a changed binlog history) stop the applier, naming the fix. */
class StreamOrderTest {
    private static final TableDef DEF = new TableDef(new TableId("app", "t"),
            List.of(Column.of("id", ValueKind.INT, "bigint", false)), List.of("id"));
    private static final TablePlan PLAN = new TablePlan(DEF, DEF.id(), "p.app.t", "p.app.t.copy",
            KeyComparators.keyOrder(List.of(KeyComparators.NATURAL)), null);

    @Test
    void coordinatesGoingBackStopTheApplierAndRedeliveriesDoNot() {
        PartitionState ps = new PartitionState(PLAN, 0, new StateStore.Claimed(1, 0, 0, new TreeSet<>(), List.of(), -1));
        ps.order.check(new BinlogEventPosition("mariadb-bin.000007", 900, "0-1-50"), 10);
        ps.order.check(new BinlogEventPosition("mariadb-bin.000008", 4, "0-1-51"), 11);
        ps.order.check(new BinlogEventPosition("mariadb-bin.000007", 900, "0-1-50"), 10);   // redelivered after a rewind
        ps.order.check(new BinlogEventPosition("mariadb-bin.000008", 4, "0-1-51"), 11);
        assertThatThrownBy(() -> ps.order.check(new BinlogEventPosition("mariadb-bin.000001", 330, "0-1-1"), 12))
                .isInstanceOf(ApplierException.class)
                .hasMessageContaining("app.t")
                .hasMessageContaining("mariadb-bin.000008")
                .hasMessageContaining("mariadb-bin.000001")
                .hasMessageContaining("RESET MASTER")
                .hasMessageContaining("Re-copy");
    }

    @Test
    void positionsOfOneHistoryPass() {
        PartitionState ps = new PartitionState(PLAN, 0, new StateStore.Claimed(1, 0, 0, new TreeSet<>(), List.of(), -1));
        ps.order.check(new BinlogEventPosition("mysql-bin.000009", 100, null), 0);
        ps.order.check(new BinlogEventPosition("mysql-bin.000009", 100, null), 1);   // same transaction
        ps.order.check(new BinlogEventPosition("mysql-bin.000010", 4, null), 2);
        assertThat(ps.pastCopy(2)).isFalse();
    }
}
