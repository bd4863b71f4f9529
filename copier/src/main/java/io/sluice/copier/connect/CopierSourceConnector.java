package io.sluice.copier.connect;

import io.sluice.copier.CopierConfig;

import io.sluice.copier.JdbcSource;
import io.sluice.copier.RangePlanner;
import io.sluice.spi.dialect.Dialects;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.topic.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The copier as a Kafka Connect source connector. It only plans and delegates: at start it describes every
 * table (a table the copier cannot copy fails the connector before any topic exists), fixes each table's range
 * plan (reusing the one stored in the offsets of an earlier run: a plan must never change once a chunk of it
 * is committed), and creates the copy topics; {@link CopierSourceTask}s copy the ranges, spread over
 * {@code tasks.max} tasks.
 *
 * <p>Runs with Connect's exactly-once source support ({@code exactly.once.source.support=enabled} on the
 * workers, {@code exactly.once.support=required} and {@code transaction.boundary=poll} on the connector): one
 * poll is whole chunks, so a chunk and its offset commit in one Kafka transaction, and a crash mid-chunk leaves
 * nothing of it visible to the applier's {@code read_committed} consumer. Values are raw bytes:
 * {@code value.converter} must be {@code ByteArrayConverter}.
 */
public class CopierSourceConnector extends SourceConnector {
    private static final Logger log = LoggerFactory.getLogger(CopierSourceConnector.class);

    /** Offsets of ranges 0..MAX_RANGES-1 are searched for a stored plan; split.ranges is capped to it. */
    static final int MAX_RANGES = 256;
    /** Named, not imported: the converter lives in connect-runtime, which a plugin must not bundle. */
    static final String BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter";

    private Map<String, String> props;
    private List<CopyUnit> units;

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = Map.copyOf(props);
        String converter = props.get("value.converter");
        if (!BYTE_ARRAY_CONVERTER.equals(converter)) {
            throw new ConnectException("the copier writes encoded copy messages: set value.converter="
                    + BYTE_ARRAY_CONVERTER + " (got " + converter + ")");
        }
        CopierConnectorConfig config = parse(props);
        SourceDialect dialect = Dialects.source(config.jdbcUrl());
        List<TableDef> defs = new ArrayList<>();
        Map<TableId, List<Object[]>> plans = new LinkedHashMap<>();
        try (Connection c = JdbcSource.factory(config.jdbcUrl(), config.user(), config.password()).open()) {
            for (TableId t : config.tables()) {
                defs.add(dialect.describe(c, t));
            }
            int ranges = Math.min(MAX_RANGES, config.copier().splitRanges() > 0 ? config.copier().splitRanges()
                    : Integer.parseInt(props.getOrDefault("tasks.max", "1")));
            for (TableDef def : defs) {
                List<Object[]> stored = storedPlan(def);
                // A direct table's chunks are copied one after another by one applier task, so ranges read in parallel
                // would only interleave them: one range loads the table in key order (its key build then sorts presorted
                // rows; at 5M rows the copy took as long either way, 23.4-30.3 against 25.9-26.6 s).
                int split = config.copyDirect().contains(def.id()) ? 1 : ranges;
                plans.put(def.id(), stored != null ? stored : RangePlanner.splitPoints(dialect, c, def, config.copier(), split));
            }
        } catch (PlanException e) {
            throw new ConnectException(e.getMessage(), e);
        } catch (Exception e) {
            throw new ConnectException("cannot plan the copy from " + Dialects.redact(config.jdbcUrl()) + ": " + e.getMessage(), e);
        }
        try (Admin admin = Admin.create(config.adminProps())) {
            for (TableDef def : defs) {
                TopicSetup.checkChangeTopic(admin, Topics.changeTopic(config.pipeline(), def.id()), config.partitions());
                TopicSetup.ensure(admin, Topics.copyTopic(config.pipeline(), def.id()), config.partitions(),
                        config.replicationFactor(), config.copier().messageMaxBytes());
            }
        } catch (Exception e) {
            throw new ConnectException("cannot set up the copy topics: " + e.getMessage(), e);
        }
        units = new ArrayList<>();
        for (TableDef def : defs) {
            List<Object[]> points = plans.get(def.id());
            String plan = KeyText.plan(def, points);
            for (int r = 0; r <= points.size(); r++) {
                units.add(new CopyUnit(def.id(), r, plan));
            }
        }
        log.info("Copier connector planned {} ranges over {} tables", units.size(), defs.size());
    }

    /**
     * A complete connector config from the copier's settings ({@link CopierConnectorConfig}: pipeline, tables,
     * source, bootstrap servers, chunk and throttle settings, producer overrides), checked by the copier's own
     * rules before anything is posted: the converters its messages need and the exactly-once settings that make a
     * chunk one Kafka transaction (docs/design/merge.md; the worker needs {@code exactly.once.source.support=enabled}).
     *
     * @param tasksMax the connector's {@code tasks.max}: how many tasks share the ranges
     */
    public static Map<String, String> connectorConfig(Map<String, String> copierSettings, int tasksMax) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", CopierSourceConnector.class.getName());
        c.put("tasks.max", String.valueOf(tasksMax));
        c.put("key.converter", BYTE_ARRAY_CONVERTER);
        c.put("value.converter", BYTE_ARRAY_CONVERTER);
        c.put("exactly.once.support", "required");
        c.put("transaction.boundary", "poll");
        c.putAll(copierSettings);
        CopierConnectorConfig.parse(c);
        return c;
    }

    private static CopierConnectorConfig parse(Map<String, String> props) {
        try {
            return CopierConnectorConfig.parse(props);
        } catch (RuntimeException e) {
            throw new ConnectException(e.getMessage(), e);
        }
    }

    /** The plan an earlier run committed with its first chunks, if any range of the table has an offset. */
    private List<Object[]> storedPlan(TableDef def) {
        List<Map<String, Object>> partitions = new ArrayList<>();
        for (int r = 0; r < MAX_RANGES; r++) {
            partitions.add(CopyUnit.sourcePartition(def.id(), r));
        }
        Map<Map<String, Object>, Map<String, Object>> offsets = context().offsetStorageReader().offsets(partitions);
        for (Map<String, Object> offset : offsets.values()) {
            if (offset != null && offset.get("plan") instanceof String plan) {
                log.info("Reusing the range plan of {} stored with its progress", def.id());
                return KeyText.plan(def, plan);
            }
        }
        return null;
    }

    @Override
    public Class<? extends Task> taskClass() {
        return CopierSourceTask.class;
    }

    /** Ranges dealt round-robin; a table's ranges land on different tasks, so a big table is copied in parallel. */
    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        int tasks = Math.max(1, Math.min(maxTasks, units.size()));
        List<List<CopyUnit>> perTask = new ArrayList<>();
        for (int t = 0; t < tasks; t++) {
            perTask.add(new ArrayList<>());
        }
        for (int i = 0; i < units.size(); i++) {
            perTask.get(i % tasks).add(units.get(i));
        }
        List<Map<String, String>> out = new ArrayList<>();
        // The rate limit is the copy's in all: each task paces its own share.
        long rate = Long.parseLong(props.getOrDefault(CopierConfig.THROTTLE_ROWS_PER_SECOND.key(), "0").trim());
        for (List<CopyUnit> mine : perTask) {
            Map<String, String> config = new HashMap<>(props);
            config.put(CopyUnit.TASK_UNITS, CopyUnit.encode(mine));
            if (rate > 0) {
                config.put(CopierConfig.THROTTLE_ROWS_PER_SECOND.key(), String.valueOf(Math.max(1, (rate + tasks - 1) / tasks)));
            }
            out.add(config);
        }
        return out;
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return CopierConnectorConfig.SETTINGS.toConfigDef();
    }

    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
        return ExactlyOnceSupport.SUPPORTED;
    }

    /** Transaction boundaries are Connect's per-poll ones: each poll returns whole chunks. */
    @Override
    public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> connectorConfig) {
        return ConnectorTransactionBoundaries.UNSUPPORTED;
    }
}
