package io.sluice.mysql;

import io.debezium.spi.converter.CustomConverter;
import io.debezium.spi.converter.RelationalColumn;
import org.apache.kafka.connect.data.SchemaBuilder;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;

/**
 * A Debezium custom converter for MariaDB's {@code uuid} columns, registered by {@link MariaDbStream}.
 *
 * <p>The binlog carries a uuid as a fixed-length binary string and, like every BINARY(n) value, without its
 * trailing zero bytes. Debezium 3.5's MariaDB connector reads those bytes as a right-aligned number, so
 * {@code 84b997e8-9986-424b-afaf-deec196e4100} arrives as {@code 0084b997-e899-8642-4baf-afdeec196e41}: a
 * different value for about one uuid in 256, which also hashes a uuid key to another Kafka partition than the
 * copy's. This converter pads the raw bytes back to 16 on the right, which is exact. Values that already are
 * text (JDBC reads) pass through. The schema stays {@code io.debezium.data.Uuid}, so the row model sees a UUID.
 */
public class MariaDbUuidConverter implements CustomConverter<SchemaBuilder, RelationalColumn> {

    @Override
    public void configure(Properties props) {
    }

    @Override
    public void converterFor(RelationalColumn column, ConverterRegistration<SchemaBuilder> registration) {
        if (!"UUID".equals(column.typeName().toUpperCase(Locale.ROOT))) {
            return;
        }
        SchemaBuilder schema = SchemaBuilder.string().name("io.debezium.data.Uuid").version(1);
        if (column.isOptional()) {
            schema.optional();
        }
        registration.register(schema, MariaDbUuidConverter::convert);
    }

    static Object convert(Object value) {
        if (value == null) {
            return null;
        }
        byte[] raw;
        if (value instanceof byte[] b) {
            raw = b;
        } else if (value instanceof ByteBuffer bb) {
            raw = new byte[bb.remaining()];
            bb.duplicate().get(raw);
        } else {
            return value.toString();
        }
        if (raw.length > 16) {
            throw new IllegalArgumentException("uuid value of " + raw.length + " bytes");
        }
        byte[] full = new byte[16];
        System.arraycopy(raw, 0, full, 0, raw.length);
        ByteBuffer b = ByteBuffer.wrap(full);
        return new UUID(b.getLong(), b.getLong()).toString();
    }
}
