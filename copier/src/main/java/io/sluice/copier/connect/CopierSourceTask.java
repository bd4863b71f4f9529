package io.sluice.copier.connect;

import io.micrometer.core.instrument.Metrics;
import io.sluice.copier.Chunk;
import io.sluice.copier.ChunkEncoder;
import io.sluice.copier.Chunker;
import io.sluice.copier.CopierConfig;
import io.sluice.copier.CopierMetrics;
import io.sluice.copier.CopyRange;
import io.sluice.copier.CopyRecord;
import io.sluice.copier.JdbcSource;
import io.sluice.copier.LagThrottler;
import io.sluice.copier.RateLimit;
import io.sluice.copier.RangePlanner;
import io.sluice.copier.SourceLoadProbe;
import io.sluice.copier.SourceLoadThrottler;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Copies the ranges assigned to it, one chunk per {@link #poll()}: the records a poll returns are exactly one
 * whole chunk (plus the RANGE_END after a range's last chunk), which with {@code transaction.boundary=poll}
 * makes a chunk one Kafka transaction together with its source offset. The offset of a range is the last
 * committed chunk's {@code hi} and {@code seq}, plus the range plan; a restarted task continues right after the
 * last committed chunk.
 */
public class CopierSourceTask extends SourceTask {
    private static final Logger log = LoggerFactory.getLogger(CopierSourceTask.class);
    private static final long IDLE_MILLIS = 1000;

    private CopierConnectorConfig config;
    private final Deque<Work> queue = new ArrayDeque<>();
    private final Map<TableId, CopierMetrics> metrics = new HashMap<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private Throttler throttler = Throttler.none();
    private StreamGate gate;
    private Admin admin;
    private boolean gateOpen;
    private long nextGateLog;
    private volatile boolean stopping;

    private record Work(CopyUnit unit, Chunker chunker, ChunkEncoder encoder, String plan, String topic) {
    }

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
        CopierConfig copier = config.copier();
        SourceDialect dialect = Dialects.source(config.jdbcUrl()).withZeroDates(config.zeroDates());
        ConnectionFactory source = JdbcSource.factory(config.jdbcUrl(), config.user(), config.password());
        List<CopyUnit> units = CopyUnit.decode(props.get(CopyUnit.TASK_UNITS));
        Map<TableId, TableDef> defs = new HashMap<>();
        try (Connection c = source.open()) {
            for (CopyUnit u : units) {
                if (!defs.containsKey(u.table())) {
                    defs.put(u.table(), dialect.describe(c, u.table()));
                }
            }
        } catch (Exception e) {
            throw new ConnectException("cannot describe the tables to copy: " + e.getMessage(), e);
        }
        for (CopyUnit u : units) {
            TableDef def = defs.get(u.table());
            CopyRange range = RangePlanner.ranges(def, KeyText.plan(def, u.plan())).get(u.rangeId());
            CopierMetrics m = metrics.computeIfAbsent(u.table(), t -> new CopierMetrics(Metrics.globalRegistry, t.toString()));
            Chunker chunker = new Chunker(dialect, source, range, copier, m);
            Map<String, Object> offset = context.offsetStorageReader().offset(u.sourcePartition());
            if (offset != null) {
                if (!u.plan().equals(offset.get("plan"))) {
                    throw new ConnectException("the stored progress of " + range + " belongs to another range plan; "
                            + "reset the copier connector's offsets to copy the table again");
                }
                if (Boolean.TRUE.equals(offset.get("done"))) {
                    continue;
                }
                chunker.resumeAfter(((Number) offset.get("seq")).longValue(), KeyText.key(def, (String) offset.get("hi")));
                log.info("Resuming {} after chunk {}", range, offset.get("seq"));
            } else {
                log.info("Starting {} from its first chunk (no stored progress)", range);
            }
            queue.add(new Work(u, chunker, new ChunkEncoder(def, config.partitions(), copier), u.plan(),
                    Topics.copyTopic(config.pipeline(), def.id())));
        }
        admin = Admin.create(config.adminProps());
        closeables.add(admin);
        gate = StreamGate.create(config, dialect, source, admin);
        throttler = throttler(dialect, source, copier);
    }

    private Throttler throttler(SourceDialect dialect, ConnectionFactory source, CopierConfig copier) {
        List<Throttler> all = new ArrayList<>();
        if (copier.throttleThreadsRunningMax() > 0) {
            SourceLoadThrottler t = new SourceLoadThrottler(SourceLoadProbe.threadsRunning(dialect.name(), source),
                    copier.throttleThreadsRunningMax(), copier.throttleCheckInterval(), copier.throttleWait());
            closeables.add(t);
            all.add(t);
        }
        if (copier.throttleHistoryLengthMax() > 0) {
            SourceLoadThrottler t = new SourceLoadThrottler(SourceLoadProbe.historyListLength(dialect.name(), source),
                    copier.throttleHistoryLengthMax(), copier.throttleCheckInterval(), copier.throttleWait());
            closeables.add(t);
            all.add(t);
        }
        if (copier.throttleRowsPerSecond() > 0) {
            all.add(new RateLimit(copier.throttleRowsPerSecond()));   // this task's share (CopierSourceConnector)
        }
        if (!config.applierGroup().isBlank() && config.applierLagMax() > 0) {
            all.add(new LagThrottler(new ApplierGroupLag(admin, config.pipeline(), config.applierGroup(), config.partitions(),
                    copier.throttleCheckInterval().toNanos()), config.applierLagMax(), copier.throttleWait()));
        }
        return Throttler.all(all);
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        if (stopping) {
            return null;
        }
        Work work = queue.peek();
        if (work == null) {
            Thread.sleep(IDLE_MILLIS);   // every assigned range is copied; Connect keeps polling an idle task
            return null;
        }
        if (!gateOpen && !gateOpen()) {
            Thread.sleep(IDLE_MILLIS);
            return null;
        }
        TableId table = work.unit().table();
        Duration delay = throttler.delay(table);
        if (!delay.isZero() && !delay.isNegative()) {
            Duration slept = delay.compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1) : delay;
            Thread.sleep(slept.toMillis());
            metrics.get(table).throttled(slept);
            return null;
        }
        Chunk chunk;
        List<CopyRecord> records;
        try {
            chunk = work.chunker().next();
            throttler.copied(table, chunk.rows().size());
            records = work.encoder().encode(chunk);
        } catch (Exception e) {
            if (stopping) {
                return null;
            }
            throw new ConnectException("copying " + work.chunker().range() + " failed: " + e.getMessage(), e);
        }
        Map<String, Object> offset = new HashMap<>();
        offset.put("plan", work.plan());
        offset.put("seq", chunk.seq());
        offset.put("hi", chunk.hi() == null ? "" : KeyText.key(work.chunker().range().table(), chunk.hi()));
        offset.put("done", chunk.lastInRange());
        Map<String, Object> partition = work.unit().sourcePartition();
        List<SourceRecord> out = new ArrayList<>(records.size());
        for (CopyRecord r : records) {
            out.add(new SourceRecord(partition, offset, work.topic(), r.partition(), null, null, Schema.BYTES_SCHEMA, r.value()));
        }
        if (chunk.lastInRange()) {
            queue.poll();
            work.chunker().close();
            log.info("Range {} copied", work.chunker().range());
        }
        return out;
    }

    private boolean gateOpen() {
        try {
            gateOpen = gate.ready();
        } catch (Exception e) {
            log.warn("Cannot check whether the stream is ready ({}): {}", gate.waitingFor(), e.getMessage());
        }
        if (!gateOpen && System.currentTimeMillis() >= nextGateLog) {
            log.info("Copier waiting for {} before the first chunk", gate.waitingFor());
            nextGateLog = System.currentTimeMillis() + 30_000;
        }
        return gateOpen;
    }

    @Override
    public void stop() {
        stopping = true;
        for (Work w : queue) {
            w.chunker().close();
        }
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                log.debug("Closing {} failed", c, e);
            }
        }
    }
}
