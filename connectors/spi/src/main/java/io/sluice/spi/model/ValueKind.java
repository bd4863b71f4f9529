package io.sluice.spi.model;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.UUID;

/**
 * The canonical kinds of values in the shared row model. Every value, whether it was read by the copier
 * over JDBC or decoded from a Debezium change event, is converted to exactly one Java type per kind, so a
 * value has one representation whichever path it took (and hashes to the same Kafka partition).
 */
public enum ValueKind {
    BOOLEAN(Boolean.class),
    /** Signed integers up to 64 bits and unsigned ones up to 32 bits. */
    INT(Long.class),
    /** Exact numerics, including {@code BIGINT UNSIGNED} (which does not fit a long). */
    DECIMAL(BigDecimal.class),
    FLOAT32(Float.class),
    FLOAT64(Double.class),
    STRING(String.class),
    BYTES(byte[].class),
    UUID(UUID.class),
    /** JSON documents as text (normalised by the target, not here). */
    JSON(String.class),
    DATE(LocalDate.class),
    /** Time of day, microsecond precision. */
    TIME(LocalTime.class),
    /** Timestamp without time zone, microsecond precision. */
    TIMESTAMP(LocalDateTime.class),
    /** Timestamp with time zone, as an instant (UTC). */
    TIMESTAMPTZ(Instant.class),
    /**
     * A value of a type only the source engine has (PostgreSQL arrays, ranges, multiranges, composites, hstore), as
     * that engine's own text of it (its output function); the column's native type is the declared type, which the
     * same engine's target keeps and casts the text to. No other engine can hold it: a cross-engine plan refuses it.
     */
    NATIVE_TEXT(String.class);

    private final Class<?> javaType;

    ValueKind(Class<?> javaType) {
        this.javaType = javaType;
    }

    public Class<?> javaType() {
        return javaType;
    }
}
