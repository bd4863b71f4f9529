package io.sluice.spi.position;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * GTIDs of a binlog snapshot and an event, where both are recorded: they name transactions independently of the
 * server's binlog file names, so they still compare after a failover to a replica (whose files are numbered
 * apart) or a {@code RESET MASTER}, where file and offset do not.
 * <ul>
 *   <li><b>MariaDB</b> ({@code domain-server-seq}): a snapshot's GTID position holds, per replication domain, the
 *       last transaction before it. Recorded only where the source runs {@code gtid_strict_mode}, which makes the
 *       sequence numbers of a domain increase in binlog order on every server: an event is before the snapshot
 *       iff its domain's sequence number is at most the position's.</li>
 *   <li><b>MySQL</b> ({@code uuid[:tag]:n}): a snapshot's GTID set is the set of executed transactions; an event is
 *       before the snapshot iff its GTID is in the set.</li>
 * </ul>
 * Anything else (a side without a GTID, formats that do not match) is not comparable: file and offset decide.
 */
final class Gtids {
    private static final Pattern MARIADB_ONE = Pattern.compile("\\d+-\\d+-\\d+");
    private static final Pattern MARIADB_POS = Pattern.compile("\\d+-\\d+-\\d+(,\\d+-\\d+-\\d+)*");
    private static final Pattern INTERVAL = Pattern.compile("\\d+(-\\d+)?");

    private Gtids() {
    }

    /** Whether the snapshot's GTIDs include the event's; null when the two cannot be compared. */
    static Boolean includes(String snapshot, String event) {
        if (snapshot == null || event == null || snapshot.isBlank() || event.isBlank()) {
            return null;
        }
        if (MARIADB_POS.matcher(snapshot).matches()) {
            if (!MARIADB_ONE.matcher(event).matches()) {
                return null;
            }
            String[] e = event.split("-");
            Long last = mariaDbPosition(snapshot).get(Long.parseLong(e[0]));
            return last != null && Long.parseLong(e[2]) <= last;
        }
        int colon = event.lastIndexOf(':');
        if (colon <= 0 || !event.substring(colon + 1).matches("\\d+") || snapshot.indexOf(':') < 0) {
            return null;
        }
        long n = Long.parseLong(event.substring(colon + 1));
        List<long[]> intervals = mySqlSet(snapshot).get(event.substring(0, colon).toLowerCase(java.util.Locale.ROOT));
        if (intervals == null) {
            return false;
        }
        return intervals.stream().anyMatch(i -> n >= i[0] && n <= i[1]);
    }

    /** Whether {@code a}'s GTIDs include all of {@code b}'s; null when the two cannot be compared. */
    static Boolean includesAll(String a, String b) {
        if (a == null || b == null || a.isBlank() || b.isBlank()) {
            return null;
        }
        if (MARIADB_POS.matcher(a).matches() && MARIADB_POS.matcher(b).matches()) {
            Map<Long, Long> pa = mariaDbPosition(a);
            return mariaDbPosition(b).entrySet().stream().allMatch(e -> pa.getOrDefault(e.getKey(), -1L) >= e.getValue());
        }
        if (MARIADB_POS.matcher(a).matches() || MARIADB_POS.matcher(b).matches()) {
            return null;
        }
        Map<String, List<long[]>> sa = mySqlSet(a);
        for (Map.Entry<String, List<long[]>> e : mySqlSet(b).entrySet()) {
            for (long[] i : e.getValue()) {
                List<long[]> in = sa.get(e.getKey());
                if (in == null || in.stream().noneMatch(j -> j[0] <= i[0] && j[1] >= i[1])) {
                    return false;   // not contained in one interval: MySQL sets are normalised, so not contained at all
                }
            }
        }
        return true;
    }

    static boolean isMariaDbPosition(String gtid) {
        return gtid != null && MARIADB_POS.matcher(gtid).matches();
    }

    /** Domain → last sequence number. */
    static Map<Long, Long> mariaDbPosition(String pos) {
        Map<Long, Long> out = new HashMap<>();
        for (String g : pos.split(",")) {
            String[] p = g.trim().split("-");
            out.merge(Long.parseLong(p[0]), Long.parseLong(p[2]), Math::max);
        }
        return out;
    }

    /** {@code uuid} or {@code uuid:tag} → intervals of transaction numbers. */
    static Map<String, List<long[]>> mySqlSet(String set) {
        Map<String, List<long[]>> out = new HashMap<>();
        for (String item : set.split(",")) {
            String[] t = item.trim().split(":");
            String uuid = t[0].toLowerCase(java.util.Locale.ROOT);
            String key = uuid;
            for (int i = 1; i < t.length; i++) {
                if (INTERVAL.matcher(t[i]).matches()) {
                    String[] ab = t[i].split("-");
                    long lo = Long.parseLong(ab[0]);
                    out.computeIfAbsent(key, k -> new ArrayList<>()).add(new long[]{lo, ab.length > 1 ? Long.parseLong(ab[1]) : lo});
                } else {
                    key = uuid + ":" + t[i].toLowerCase(java.util.Locale.ROOT);
                }
            }
        }
        return out;
    }
}
