package io.sluice.copier.connect;

import io.sluice.spi.codec.ByteSink;
import io.sluice.spi.codec.ByteSource;
import io.sluice.spi.codec.ValueCodec;
import io.sluice.spi.model.TableDef;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Keys and range plans as text for Connect offsets and task configs: the copy stream's own key encoding
 * ({@link ValueCodec}), base64url. Decoding needs the same table plan, which the copier re-describes on start.
 */
final class KeyText {
    private KeyText() {
    }

    static String key(TableDef table, Object[] key) {
        ByteSink out = new ByteSink(64);
        ValueCodec.writeKey(out, table, key, false);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(out.toByteArray());
    }

    static Object[] key(TableDef table, String text) {
        ByteSource in = new ByteSource(Base64.getUrlDecoder().decode(text));
        return ValueCodec.readKey(in, table);
    }

    static String plan(TableDef table, List<Object[]> splitPoints) {
        ByteSink out = new ByteSink(64);
        out.writeVarLong(splitPoints.size());
        for (Object[] p : splitPoints) {
            ValueCodec.writeKey(out, table, p, false);
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(out.toByteArray());
    }

    static List<Object[]> plan(TableDef table, String text) {
        ByteSource in = new ByteSource(Base64.getUrlDecoder().decode(text));
        int n = Math.toIntExact(in.readVarLong());
        List<Object[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(ValueCodec.readKey(in, table));
        }
        return out;
    }
}
