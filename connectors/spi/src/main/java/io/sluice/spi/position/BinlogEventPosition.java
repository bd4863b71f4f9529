package io.sluice.spi.position;

import java.util.Objects;

/**
 * A MySQL/MariaDB change event's position: the binlog file and an offset inside its transaction (Debezium's
 * {@code source.file}/{@code source.pos}), plus the GTID when the server has one, kept for diagnostics.
 */
public record BinlogEventPosition(String file, long pos, String gtid) implements EventPosition {

    public BinlogEventPosition {
        Objects.requireNonNull(file, "file");
    }

    @Override
    public String encode() {
        return "binlog:" + file + ":" + pos + (gtid == null ? "" : ":" + gtid);
    }
}
