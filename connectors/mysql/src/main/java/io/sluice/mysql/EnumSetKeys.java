package io.sluice.mysql;

import io.sluice.spi.dialect.PlanException;
import io.sluice.spi.model.Column;
import io.sluice.spi.model.EnumSetNumbers;
import io.sluice.spi.model.TableId;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * ENUM and SET key columns in keyset bounds. The server orders them by their number (an ENUM's declaration
 * index, a SET's bit value), but compares them with a text parameter as text, so {@code ORDER BY e} and
 * {@code e > 'b'} disagree whenever the members are not declared in text order, and a chunk walk skips or repeats
 * whole ranges. Compared with an integer, the server uses the number: so bounds are bound as that number, the
 * same order {@link MariaDbKeyOrder} uses in Java.
 */
final class EnumSetKeys {
    private EnumSetKeys() {
    }

    /** Binds a key value of {@code c}: an ENUM/SET as its number, anything else as itself. */
    static void bind(PreparedStatement ps, int index, Column c, Object value) throws SQLException {
        Object number = EnumSetNumbers.orderValue(c, value);
        if (number != value) {
            ps.setLong(index, (Long) number);
        } else {
            MariaDbTypes.bind(ps, index, c, value);
        }
    }

    /**
     * An ENUM declaring '' as a member reads the same as the invalid value (index 0) that non-strict inserts
     * store, so the key's text does not tell its index: refused as a key.
     */
    static void checkKey(TableId table, Column c) {
        if (EnumSetNumbers.isEnum(c) && EnumSetNumbers.options(c.nativeType()).contains("")) {
            throw new PlanException("key column " + table + "." + c.name() + " is " + c.nativeType()
                    + ", which declares '' as a member: it reads the same as the invalid ENUM value, so keys cannot be ordered "
                    + "exactly; remove the '' member or add a primary key of another type");
        }
    }
}
