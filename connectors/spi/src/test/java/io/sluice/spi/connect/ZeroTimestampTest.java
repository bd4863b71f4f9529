package io.sluice.spi.connect;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.ValueKind;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** A MariaDB/MySQL zero TIMESTAMP reaches the row model as NULL from the change stream, as from the copy; PostgreSQL's epoch stays. */
class ZeroTimestampTest {
    private static final Schema ZONED = SchemaBuilder.string().name("io.debezium.time.ZonedTimestamp").optional().build();

    @Test
    void theBinlogsZeroTimestampIsNull() {
        Column maria = new Column("v", ValueKind.TIMESTAMPTZ, "timestamp", true, 0, 6, null);
        assertThat(ConnectValues.toCanonical(maria, ZONED, "1970-01-01T00:00:00Z", null)).isNull();
        assertThat(ConnectValues.toCanonical(maria, ZONED, "1970-01-01T00:00:01Z", null)).isEqualTo(Instant.ofEpochSecond(1));
    }

    @Test
    void postgresEpochIsAnInstant() {
        Column pg = new Column("v", ValueKind.TIMESTAMPTZ, "timestamptz", true, 0, 6, null);
        assertThat(ConnectValues.toCanonical(pg, ZONED, "1970-01-01T00:00:00Z", null)).isEqualTo(Instant.EPOCH);
    }
}
