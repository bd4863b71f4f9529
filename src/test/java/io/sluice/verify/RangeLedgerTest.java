package io.sluice.verify;

import io.sluice.spi.model.TableId;
import io.sluice.testkit.PostgresServer;
import io.sluice.testkit.TestServers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.sluice.verify.Sample.exec;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The range walk an alter runs beside its copy (RangeLedger). A change to the table makes every digest taken before
 * it useless to the final check; the walk must not go on scanning a table that keeps changing, and must still end
 * with a complete set of usable digests once the table falls quiet.
 */
class RangeLedgerTest {
    private static PostgresServer pg;
    private static String db;
    private static VerifySide side;

    @BeforeAll
    static void server() throws Exception {
        pg = TestServers.postgres();
        db = pg.createDatabase("ledger_walk");
        side = VerifySide.of(pg.jdbcUrl(db), () -> pg.connect(db));
        try (Connection c = pg.connect(db)) {
            exec(c, "CREATE TABLE public.\"t wide\" " + Sample.PG_COLUMNS);
            Sample.insertPg(c, "public.\"t wide\"", Sample.rows(1000, false));
        }
    }

    private static RangeLedger ledger() {
        TableId id = new TableId("public", "t wide");
        return new RangeLedger(Sample.pgDef(id));
    }

    @Test
    void aQuietTableIsWalkedToTheEndInOnePass() throws Exception {
        RangeLedger l = ledger();
        l.walk(side, 100, () -> Map.of(0, 5L), () -> false, Duration.ofMillis(300));
        assertThat(l.size()).isEqualTo(11);   // ten full ranges of 100, then the open-ended rest
        assertThat(l.rows()).isEqualTo(1000);
        assertThat(l.restarts()).isZero();
        RangeLedger.Prior p = l.prior(Map.of(0, 5L));
        assertThat(p.complete()).isTrue();
        assertThat(p.cleanRanges()).isEqualTo(11);
    }

    /** The stream's end moves on every read for 1.5 s (the table keeps changing), then stands still. */
    @Test
    void aChangingTableIsNotScannedUntilItIsQuietThenEveryDigestIsUsable() throws Exception {
        long writesUntil = System.nanoTime() + Duration.ofMillis(1500).toNanos();
        AtomicLong offset = new AtomicLong();
        AtomicInteger hashedWhileWritten = new AtomicInteger();
        RangeLedger l = ledger();
        l.walk(side, 100, () -> {
            if (System.nanoTime() < writesUntil) {
                hashedWhileWritten.accumulateAndGet(l.size(), Math::max);
                return Map.of(0, offset.incrementAndGet());
            }
            return Map.of(0, offset.get());
        }, () -> false, Duration.ofMillis(300));
        assertThat(l.restarts()).as("started over after the change").isEqualTo(1);
        assertThat(hashedWhileWritten.get()).as("digests kept while the table changed").isLessThanOrEqualTo(1);
        RangeLedger.Prior p = l.prior(Map.of(0, offset.get()));
        assertThat(p.complete()).isTrue();
        assertThat(p.cleanRanges()).as("every digest taken after the last change").isEqualTo(11);
        assertThat(l.rows()).isEqualTo(1000);
    }

    @Test
    void aStopWhileWaitingForQuietEndsTheWalk() throws Exception {
        AtomicLong offset = new AtomicLong();
        long stopAt = System.nanoTime() + Duration.ofMillis(800).toNanos();
        RangeLedger l = ledger();
        l.walk(side, 100, () -> Map.of(0, offset.incrementAndGet()), () -> System.nanoTime() > stopAt, Duration.ofMillis(300));
        assertThat(l.size()).as("no digest survives a table that never stopped changing").isZero();
        assertThat(l.prior(Map.of(0, offset.get())).complete()).isFalse();
    }
}
