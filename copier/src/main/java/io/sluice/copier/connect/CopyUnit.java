package io.sluice.copier.connect;

import io.sluice.spi.model.TableId;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One range of one table assigned to a task: the table, the range's index in the table's plan, and the plan
 * itself (the split points, as {@link KeyText}), which the task checks against its stored offsets.
 */
record CopyUnit(TableId table, int rangeId, String plan) {

    static final String TASK_UNITS = "task.units";

    Map<String, Object> sourcePartition() {
        return sourcePartition(table, rangeId);
    }

    /**
     * The range's Connect source partition. Connect stores offsets under the JSON of this map, so its key order
     * must be the same in every JVM: {@code Map.of} iterates in an order salted per JVM, which made a worker
     * restarted in a new process miss its progress and copy the range again from its first chunk.
     */
    static Map<String, Object> sourcePartition(TableId table, int rangeId) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("schema", table.schema());
        p.put("table", table.table());
        p.put("range", rangeId);
        return Collections.unmodifiableMap(p);
    }

    static String encode(List<CopyUnit> units) {
        StringBuilder sb = new StringBuilder();
        for (CopyUnit u : units) {
            if (!sb.isEmpty()) {
                sb.append(';');
            }
            sb.append(b64(u.table.schema())).append(':').append(b64(u.table.table())).append(':').append(u.rangeId)
                    .append(':').append(u.plan);
        }
        return sb.toString();
    }

    static List<CopyUnit> decode(String text) {
        List<CopyUnit> out = new ArrayList<>();
        if (text == null || text.isEmpty()) {
            return out;
        }
        for (String item : text.split(";")) {
            String[] p = item.split(":", -1);
            out.add(new CopyUnit(new TableId(unb64(p[0]), unb64(p[1])), Integer.parseInt(p[2]), p[3]));
        }
        return out;
    }

    private static String b64(String s) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String unb64(String s) {
        return new String(Base64.getUrlDecoder().decode(s), StandardCharsets.UTF_8);
    }
}
