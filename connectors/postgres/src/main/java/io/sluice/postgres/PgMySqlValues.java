package io.sluice.postgres;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.ValueKind;

import java.math.BigInteger;
import java.util.Set;

/**
 * MariaDB/MySQL values whose PostgreSQL target type is not the row model's default for their kind
 * ({@link PgTypeMapping}): {@code BIT(n)} (its bytes, most significant first) → {@code bit(n)}; the GEOMETRY family (the server's value: a 4-byte
 * little-endian SRID, then the WKB) → {@code bytea} holding the WKB, as EWKB (PostGIS's WKB with the SRID)
 * when the SRID is not 0, so no value loses its SRID. PostGIS reads either with {@code ST_GeomFromEWKB}.
 */
final class PgMySqlValues {
    private static final Set<String> GEOMETRY = Set.of("geometry", "point", "linestring", "polygon", "multipoint",
            "multilinestring", "multipolygon", "geometrycollection", "geomcollection");

    private PgMySqlValues() {
    }

    /** A MariaDB/MySQL {@code BIT(n)} column, n &gt; 1 (BIT(1) is a boolean). */
    static boolean isBit(Column c) {
        return c.kind() == ValueKind.BYTES && c.nativeType().equals("bit");
    }

    /** A MariaDB/MySQL {@code TIME} column (a PostgreSQL source's is {@code time without time zone}). */
    static boolean isTime(Column c) {
        return c.kind() == ValueKind.TIME && c.nativeType().equals("time");
    }

    static boolean isGeometry(Column c) {
        return c.kind() == ValueKind.BYTES && GEOMETRY.contains(c.nativeType());
    }

    /** {@code bit(n)}'s text: the low {@code n} bits of the right-aligned bytes. */
    static String bitText(byte[] b, int n) {
        String s = new BigInteger(1, b).toString(2);
        if (s.length() > n) {
            throw new IllegalArgumentException("bit value of " + s.length() + " bits for bit(" + n + ")");
        }
        return "0".repeat(n - s.length()) + s;
    }

    /** bit's binary wire format after the length word: the bit count, then the bits left-aligned in bytes. */
    static byte[] bitWire(byte[] b, int n) {
        bitText(b, n);   // checks the width
        int bytes = (n + 7) / 8;
        byte[] aligned = new BigInteger(1, b).shiftLeft(bytes * 8 - n).toByteArray();
        byte[] out = new byte[4 + bytes];
        out[0] = (byte) (n >>> 24);
        out[1] = (byte) (n >>> 16);
        out[2] = (byte) (n >>> 8);
        out[3] = (byte) n;
        int copy = Math.min(bytes, aligned.length);
        System.arraycopy(aligned, aligned.length - copy, out, 4 + bytes - copy, copy);
        return out;
    }

    /** The WKB of a MariaDB/MySQL geometry value; EWKB (SRID flag and SRID after the type) when its SRID is not 0. */
    static byte[] wkb(byte[] value) {
        if (value.length < 9) {
            throw new IllegalArgumentException("geometry value of " + value.length + " bytes");
        }
        int srid = (value[0] & 0xFF) | (value[1] & 0xFF) << 8 | (value[2] & 0xFF) << 16 | (value[3] & 0xFF) << 24;
        if (srid == 0) {
            return java.util.Arrays.copyOfRange(value, 4, value.length);
        }
        boolean little = value[4] == 1;
        byte[] out = new byte[value.length];   // the SRID moves from the front to after the type
        out[0] = value[4];
        int typeAt = 5;
        int type = little ? (value[typeAt] & 0xFF) | (value[typeAt + 1] & 0xFF) << 8 | (value[typeAt + 2] & 0xFF) << 16 | (value[typeAt + 3] & 0xFF) << 24
                : (value[typeAt] & 0xFF) << 24 | (value[typeAt + 1] & 0xFF) << 16 | (value[typeAt + 2] & 0xFF) << 8 | (value[typeAt + 3] & 0xFF);
        putInt(out, 1, type | 0x2000_0000, little);
        putInt(out, 5, srid, little);
        System.arraycopy(value, 9, out, 9, value.length - 9);
        return out;
    }

    private static void putInt(byte[] b, int at, int v, boolean little) {
        for (int i = 0; i < 4; i++) {
            b[at + i] = (byte) (little ? v >>> (8 * i) : v >>> (8 * (3 - i)));
        }
    }
}
