package io.sluice.app.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;

import java.util.regex.Pattern;

/**
 * Drops Debezium's warning about statement-format DML in the binlog when the statement is Sluice's own: an in-server
 * chunk of {@code sluice alter} on MariaDB is binlogged as statements (the shadow's {@code INSERT … SELECT … LOCK IN
 * SHARE MODE} and the applier's state rows in the same transaction, MariaDbInServerCopy says why), and Debezium warns
 * once per statement, three lines per chunk: 750 of a 5M-row alter's 778 log warnings. A statement anyone else writes
 * keeps its warning, in the log file and wherever the log goes: on a captured table it means changes the stream
 * cannot see.
 */
public final class OwnStatementFilter extends TurboFilter {
    static final String LOGGER = "io.debezium.connector.binlog.BinlogStreamingChangeEventSource";
    private static final String PREFIX = "Received DML '";
    /** The end of MariaDbInServerCopy's statement, with or without the rest of a concatenated message after it. */
    private static final Pattern IN_SERVER_CHUNK = Pattern.compile(" LOCK IN SHARE MODE('|$)");

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (level != Level.WARN || format == null || !format.startsWith(PREFIX) || !logger.getName().equals(LOGGER)) {
            return FilterReply.NEUTRAL;
        }
        // Debezium 3.5 passes the statement as the message's argument ("Received DML '{}' for processing, …");
        // older releases concatenated it into the message.
        String sql = format.startsWith(PREFIX + "{}'") && params != null && params.length > 0 && params[0] != null
                ? params[0].toString() : format.substring(PREFIX.length());
        return ownStatement(sql) ? FilterReply.DENY : FilterReply.NEUTRAL;
    }

    /** The applier's state tables, or an in-server chunk (the only statement-format DML Sluice writes). */
    static boolean ownStatement(String sql) {
        return sql.startsWith("INSERT INTO `sluice`.`sluice_applier_") || sql.startsWith("UPDATE `sluice`.`sluice_applier_")
                || (sql.startsWith("INSERT INTO ") && IN_SERVER_CHUNK.matcher(sql).find());
    }
}
