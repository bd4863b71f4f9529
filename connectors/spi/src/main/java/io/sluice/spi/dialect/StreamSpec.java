package io.sluice.spi.dialect;

import io.sluice.spi.model.TableId;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the Debezium source connector of a pipeline must stream.
 *
 * @param name           pipeline name; used for the topic prefix, slot, publication and server id derivation
 * @param jdbcUrl        the source database
 * @param user           user name
 * @param password       password (a secret: never logged)
 * @param tables         tables to stream
 * @param heartbeat      heartbeat interval, so an idle table does not hold back WAL/binlog purging
 * @param partitions     partitions of every change topic (equal to the copy topics': they are paired)
 * @param keys           the copy key the copier chose per table (in key order); Debezium keys its events on exactly
 *                       these columns (message.key.columns), so change and copy records of a row pair up. Empty:
 *                       Debezium's own choice (the primary key), for callers that stream primary-key tables only
 */
public record StreamSpec(String name, String jdbcUrl, String user, String password, List<TableId> tables,
                         Duration heartbeat, int partitions, Map<TableId, List<String>> keys) {

    public StreamSpec {
        keys = Map.copyOf(keys);
    }

    public StreamSpec(String name, String jdbcUrl, String user, String password, List<TableId> tables,
                      Duration heartbeat, int partitions) {
        this(name, jdbcUrl, user, password, tables, heartbeat, partitions, Map.of());
    }

    /** The change topic of a table: {@code <name>.<schema>.<table>}, Debezium's default naming. */
    public String changeTopic(TableId table) {
        return io.sluice.spi.topic.Topics.changeTopic(name, table);
    }
}
