package io.sluice.mysql;

import io.sluice.spi.position.SnapshotPosition;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * MySQL 8 as a copy source: the catalog, keys, chunk queries and value reading are MariaDB's. What differs is
 * the snapshot position, and that part is <b>not implemented</b> (no MySQL 8 server is available to test it).
 *
 * <p>MySQL has no {@code binlog_snapshot_file/position}: the binlog position of a
 * {@code START TRANSACTION WITH CONSISTENT SNAPSHOT} cannot be read consistently on the same connection,
 * because a transaction is written to the binlog before its InnoDB commit makes it visible, so a position read
 * before or after the snapshot can disagree with what the snapshot sees. The chosen design (see
 * docs/design/copier.md) is Vitess's: a second connection holds {@code LOCK TABLES t READ} while the chunk
 * connection starts its consistent snapshot and reads {@code SHOW BINARY LOG STATUS}, then unlocks — writers of
 * that one table wait a few milliseconds per chunk and the position is exact for it. A GTID window (executed
 * set before and after the snapshot, retried until equal) was rejected: it has the same visibility gap and
 * retries without bound under steady writes. {@code beginChunk} lacks the table and a second connection
 * today, hence the refusal below instead of a silently inexact position.
 */
public class MySqlSourceDialect extends MariaDbSourceDialect {

    @Override
    public String name() {
        return "mysql";
    }

    @Override
    public boolean accepts(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:mysql:");
    }

    @Override
    public SnapshotPosition beginChunk(Connection c) throws SQLException {
        throw new UnsupportedOperationException("copying from MySQL 8 is not implemented yet: its chunk snapshots need a "
                + "LOCK TABLES … READ on a second connection to get an exact binlog position (docs/design/copier.md); "
                + "MariaDB and PostgreSQL sources are supported");
    }
}
