package io.sluice.copier.connect;

import io.micrometer.core.instrument.Metrics;
import io.sluice.copier.Copier;
import io.sluice.copier.CopierConfig;
import io.sluice.copier.CopyRange;
import io.sluice.copier.CopyRecord;
import io.sluice.copier.JdbcSource;
import io.sluice.copier.LagThrottler;
import io.sluice.copier.RangePlanner;
import io.sluice.copier.Throttler;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Connect's face of the {@link Copier}: it builds the copier from the task config and the stored offsets, and
 * turns each chunk step into one poll. The records a poll returns are exactly one whole chunk (plus the
 * RANGE_END after a range's last chunk), which with {@code transaction.boundary=poll} makes a chunk one Kafka
 * transaction together with its source offset. The offset of a range is the last committed chunk's {@code hi}
 * and {@code seq}, plus the range plan; a restarted task continues right after the last committed chunk.
 */
public class CopierSourceTask extends SourceTask {
    private CopierConnectorConfig config;
    private Copier copier;
    private Admin admin;
    private final Map<CopyRange, CopyUnit> units = new IdentityHashMap<>();   // ranges are identities here
    private volatile boolean stopping;

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        config = CopierConnectorConfig.parse(props);
        try {
            io.sluice.metrics.WorkerMetrics.exportFrom(props);
        } catch (RuntimeException e) {
            throw new ConnectException(e.getMessage(), e);
        }
        SourceDialect dialect = Dialects.source(config.jdbcUrl()).withZeroDates(config.zeroDates());
        ConnectionFactory source = JdbcSource.factory(config.jdbcUrl(), config.user(), config.password());
        List<CopyUnit> assigned = CopyUnit.decode(props.get(CopyUnit.TASK_UNITS));
        Map<TableId, TableDef> defs = new HashMap<>();
        try (Connection c = source.open()) {
            for (CopyUnit u : assigned) {
                if (!defs.containsKey(u.table())) {
                    defs.put(u.table(), dialect.describe(c, u.table()));
                }
            }
        } catch (Exception e) {
            throw new ConnectException("cannot describe the tables to copy: " + e.getMessage(), e);
        }
        admin = Admin.create(config.adminProps());
        copier = new Copier(config.copier(), dialect, source, config.partitions(), applierLag(config.copier()),
                StreamGate.create(config, dialect, source, admin), Metrics.globalRegistry);
        if (config.copyInServer()) {
            try {
                copier.copyInServer();
            } catch (IllegalArgumentException e) {
                throw new ConnectException(CopierConnectorConfig.COPY_IN_SERVER.key() + ": " + e.getMessage(), e);
            }
        }
        try {
            copier.copyDirect(config.copyDirect());
        } catch (IllegalArgumentException e) {
            throw new ConnectException(CopierConnectorConfig.COPY_DIRECT_TABLES.key() + ": " + e.getMessage(), e);
        }
        for (CopyUnit u : assigned) {
            TableDef def = defs.get(u.table());
            CopyRange range = RangePlanner.ranges(def, KeyText.plan(def, u.plan())).get(u.rangeId());
            units.put(range, u);
            copier.add(range, storedProgress(u, def, range));
        }
    }

    /** The range's committed progress from Connect's offsets; a plan other than the assigned one is refused. */
    private Copier.Progress storedProgress(CopyUnit u, TableDef def, CopyRange range) {
        Map<String, Object> offset = context.offsetStorageReader().offset(u.sourcePartition());
        if (offset == null) {
            return null;
        }
        if (!u.plan().equals(offset.get("plan"))) {
            throw new ConnectException("the stored progress of " + range + " belongs to another range plan; "
                    + "reset the copier connector's offsets to copy the table again");
        }
        boolean done = Boolean.TRUE.equals(offset.get("done"));
        return new Copier.Progress(((Number) offset.get("seq")).longValue(),
                done ? null : KeyText.key(def, (String) offset.get("hi")), done);
    }

    /** The applier group's lag, when the connector names the group: the one throttler only Connect can see. */
    private Throttler applierLag(CopierConfig copierConfig) {
        if (config.applierGroup().isBlank() || config.applierLagMax() <= 0) {
            return Throttler.none();
        }
        return new LagThrottler(new ApplierGroupLag(admin, config.pipeline(), config.applierGroup(), config.partitions(),
                copierConfig.throttleCheckInterval().toNanos()), config.applierLagMax(), copierConfig.throttleWait());
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        if (stopping) {
            return null;
        }
        Copier.Step step;
        try {
            step = copier.next();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            if (stopping) {
                return null;
            }
            throw new ConnectException(e.getMessage(), e);
        }
        if (step instanceof Copier.Wait wait) {
            Thread.sleep(wait.duration().toMillis());
            return null;
        }
        Copier.Copied copied = (Copier.Copied) step;
        CopyUnit unit = units.get(copied.range());
        Map<String, Object> offset = new HashMap<>();
        offset.put("plan", unit.plan());
        offset.put("seq", copied.chunk().seq());
        offset.put("hi", copied.chunk().hi() == null ? "" : KeyText.key(copied.range().table(), copied.chunk().hi()));
        offset.put("done", copied.chunk().lastInRange());
        Map<String, Object> partition = unit.sourcePartition();
        String topic = Topics.copyTopic(config.pipeline(), unit.table());
        List<SourceRecord> out = new ArrayList<>(copied.records().size());
        for (CopyRecord r : copied.records()) {
            out.add(new SourceRecord(partition, offset, topic, r.partition(), null, null, Schema.BYTES_SCHEMA, r.value()));
        }
        return out;
    }

    @Override
    public void stop() {
        stopping = true;
        if (copier != null) {
            copier.close();
        }
        if (admin != null) {
            admin.close();
        }
    }
}
