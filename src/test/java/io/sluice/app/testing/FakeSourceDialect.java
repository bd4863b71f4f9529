package io.sluice.app.testing;

import io.sluice.spi.dialect.ConnectionFactory;
import io.sluice.spi.dialect.KeyOrder;
import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.dialect.SourceDialect;
import io.sluice.spi.dialect.StreamSpec;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.TableId;
import io.sluice.spi.position.EventPosition;
import io.sluice.spi.position.SnapshotPosition;
import org.apache.kafka.connect.data.Struct;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;

/** Source dialect for {@code jdbc:fake:} URLs, answering from {@link FakeServers}. Registered through ServiceLoader. */
public final class FakeSourceDialect implements SourceDialect {
    @Override
    public String name() {
        return "fake";
    }

    @Override
    public boolean accepts(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:fake:");
    }

    @Override
    public List<String> checkPrerequisites(Connection connection) {
        return FakeServers.sourceProblems;
    }

    @Override
    public TableDef describe(Connection connection, TableId table) {
        String unusable = FakeServers.UNUSABLE.get(table);
        if (unusable != null) {
            throw new PlanException(unusable);
        }
        TableDef def = FakeServers.SOURCE_TABLES.get(table);
        if (def == null) {
            throw new PlanException("table " + table + " not found");
        }
        return def;
    }

    @Override
    public long estimateRows(Connection connection, TableDef table) {
        return 1000;
    }

    @Override
    public List<Object[]> splitPoints(Connection connection, TableDef table, int ranges) {
        throw new UnsupportedOperationException();
    }

    @Override
    public KeyOrder keyOrder(TableDef table, ConnectionFactory source) {
        throw new UnsupportedOperationException();
    }

    @Override
    public SnapshotPosition beginChunk(Connection connection) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void endChunk(Connection connection) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String chunkQuery(TableDef table, boolean hasLo, boolean hasHi, int limit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public int bindKey(PreparedStatement statement, int firstIndex, TableDef table, Object[] key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Object[] readRow(ResultSet resultSet, TableDef table) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Map<String, String> debeziumConfig(StreamSpec spec) {
        throw new UnsupportedOperationException();
    }

    @Override
    public EventPosition eventPosition(Struct source) {
        throw new UnsupportedOperationException();
    }
}
