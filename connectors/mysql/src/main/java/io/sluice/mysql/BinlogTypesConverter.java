package io.sluice.mysql;

import io.debezium.spi.converter.CustomConverter;
import io.debezium.spi.converter.RelationalColumn;
import org.apache.kafka.connect.data.SchemaBuilder;

import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * A Debezium custom converter (registered by {@link MariaDbStream} for MariaDB and MySQL) that gives the change
 * stream the same canonical value the copier reads over JDBC ({@link MariaDbTypes}) for the types Debezium would
 * otherwise reshape:
 * <ul>
 *   <li>{@code BIT(n)}, n &gt; 1: the bit string as the JDBC drivers return it, {@code ceil(n/8)} bytes, most
 *       significant first, right-aligned (Debezium's own {@code Bits} is little-endian);</li>
 *   <li>the GEOMETRY family: the server's own value, a 4-byte little-endian SRID followed by the WKB, as a
 *       SELECT returns it (Debezium's {@code Geometry} struct splits it).</li>
 * </ul>
 * {@code BIT(1)} stays Debezium's boolean.
 */
public class BinlogTypesConverter implements CustomConverter<SchemaBuilder, RelationalColumn> {
    static final Set<String> GEOMETRY = Set.of("GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT",
            "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION", "GEOMCOLLECTION");

    @Override
    public void configure(Properties props) {
    }

    @Override
    public void converterFor(RelationalColumn column, ConverterRegistration<SchemaBuilder> registration) {
        String type = column.typeName().toUpperCase(Locale.ROOT);
        SchemaBuilder schema;
        Converter f;
        if (type.equals("BIT") && column.length().orElse(1) > 1) {
            int bytes = (column.length().getAsInt() + 7) / 8;
            schema = SchemaBuilder.bytes();
            f = v -> bits(v, bytes);
        } else if (GEOMETRY.contains(type)) {
            schema = SchemaBuilder.bytes();
            f = BinlogTypesConverter::raw;
        } else {
            return;
        }
        if (column.isOptional()) {
            schema.optional();
        }
        registration.register(schema, v -> v == null ? null : f.convert(v));
    }

    static byte[] raw(Object value) {
        if (value instanceof byte[] b) {
            return b;
        }
        if (value instanceof ByteBuffer bb) {
            byte[] out = new byte[bb.remaining()];
            bb.duplicate().get(out);
            return out;
        }
        throw new IllegalArgumentException("unexpected " + value.getClass().getName() + " for a binary value");
    }

    /** Big-endian, right-aligned, {@code bytes} long: what {@code ResultSet.getBytes} gives for a BIT(n) column. */
    static byte[] bits(Object value, int bytes) {
        byte[] out = new byte[bytes];
        byte[] littleEndian;
        if (value instanceof BitSet bs) {
            littleEndian = bs.toByteArray();
        } else if (value instanceof String s && s.matches("[01]+")) {   // a column default as Debezium parsed it
            littleEndian = new java.math.BigInteger(s, 2).toByteArray();
            reverse(littleEndian);
        } else {
            byte[] b = raw(value);   // already big-endian, maybe without leading zero bytes
            System.arraycopy(b, Math.max(0, b.length - bytes), out, Math.max(0, bytes - b.length), Math.min(bytes, b.length));
            return out;
        }
        for (int i = 0; i < littleEndian.length && i < bytes; i++) {
            out[bytes - 1 - i] = littleEndian[i];
        }
        return out;
    }

    private static void reverse(byte[] b) {
        for (int i = 0, j = b.length - 1; i < j; i++, j--) {
            byte t = b[i];
            b[i] = b[j];
            b[j] = t;
        }
    }
}
