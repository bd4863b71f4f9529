package io.sluice.applier;

import io.sluice.spi.codec.KeyPartitioner;
import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.InServerCopy;
import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;

import java.util.List;
import java.util.Objects;

/**
 * One table the applier writes: its source plan (columns, key), where it goes in the target, its two topics
 * and the source's key order (to place a change event's key in a copy chunk).
 */
public final class TablePlan {
    private final TableDef def;
    private final TableId target;
    private final String changeTopic;
    private final String copyTopic;
    private final KeyOrder keyOrder;
    private final SourceDialect source;
    private final KeyPartitioner keys;
    private SourceRows sourceRows;
    private ConnectionFactory sourceConnections;
    private boolean mergedCopy;
    private InServerCopy inServer;
    private List<String> targetColumns;

    public TablePlan(TableDef def, TableId target, String changeTopic, String copyTopic, KeyOrder keyOrder, SourceDialect source) {
        this.def = Objects.requireNonNull(def, "def");
        this.target = Objects.requireNonNull(target, "target");
        this.changeTopic = Objects.requireNonNull(changeTopic, "changeTopic");
        this.copyTopic = Objects.requireNonNull(copyTopic, "copyTopic");
        this.keyOrder = Objects.requireNonNull(keyOrder, "keyOrder");
        this.source = source;
        this.keys = new KeyPartitioner(def);
    }

    public TableDef def() {
        return def;
    }

    public TableId id() {
        return def.id();
    }

    public TableId target() {
        return target;
    }

    public String changeTopic() {
        return changeTopic;
    }

    public String copyTopic() {
        return copyTopic;
    }

    public KeyOrder keyOrder() {
        return keyOrder;
    }

    /** The source dialect (for event positions); may be null where the caller decodes positions itself. */
    public SourceDialect source() {
        return source;
    }

    /** Lets the applier read current source rows by key (see {@link SourceRows}); without it such rows fail loudly. */
    public TablePlan withSourceReads(ConnectionFactory connections, String jdbcUrl) {
        this.sourceRows = new SourceRows(source, connections, jdbcUrl, def);
        this.sourceConnections = connections;
        return this;
    }

    /**
     * Copy rows are written as upserts by key rather than bulk-inserted: the target table kept rows it held before the
     * copy (target.existing-rows: keep), so a chunk's key range is not known to be empty.
     */
    public TablePlan withMergedCopy(boolean merged) {
        this.mergedCopy = merged;
        return this;
    }

    boolean mergedCopy() {
        return mergedCopy;
    }

    /**
     * Lets the applier copy chunks inside the server ({@link InServerChunks}): the target table is on the source's
     * server, so an {@code INSERT … SELECT} reads the source table. {@code targetColumns} gives, per source column in
     * plan order, the target column it is written to, or null when it is not written (the column mapping's projection).
     */
    TablePlan withInServerCopy(InServerCopy copy, List<String> targetColumns) {
        this.inServer = copy;
        this.targetColumns = targetColumns == null ? null : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(targetColumns));
        return this;
    }

    /** The in-server copy when the target is on the source's server, else null. */
    InServerCopy inServer() {
        return inServer;
    }

    List<String> targetColumns() {
        return targetColumns;
    }

    /** Sessions on the source, for chunks the applier reads itself ({@link SourcePipe}); null without source reads. */
    ConnectionFactory sourceConnections() {
        return sourceConnections;
    }

    SourceRows sourceRows() {
        return sourceRows;
    }

    /** Normalised key bytes: equal keys give equal bytes (decimal scale and all). Single-threaded use only. */
    public byte[] keyBytes(Object[] key) {
        return keys.keyBytes(key);
    }

    @Override
    public String toString() {
        return def.id() + "→" + target;
    }
}
