package io.sluice.spi.codec;

import io.sluice.spi.model.Column;
import io.sluice.spi.model.EnumSetNumbers;
import io.sluice.spi.model.TableDef;
import io.sluice.spi.model.ValueKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * How the database decides that two values of a key column are the same key, as far as partitioning needs it.
 *
 * <p>Why it matters: under a case-insensitive or PAD SPACE collation, {@code 'alice'}, {@code 'Alice'} and
 * {@code 'alice '} are one key to the source and to a target that keeps the collation, but three byte strings.
 * {@code UPDATE … SET k = 'Alice' WHERE k = 'alice'} streams as a DELETE of one and an INSERT of the other; were
 * they hashed to different partitions, two applier tasks would write them in either order and the target could
 * lose the row. So every key equal under the column's comparison must land on one partition: the partition
 * hash uses a value that is equal whenever the database says the keys are equal (it may be equal more often:
 * that only puts more keys on one partition, never splits a key).
 *
 * <ul>
 *   <li>{@link #EXACT}: equal means equal bytes (numbers, temporal types, bytes, ENUM/SET members,
 *       PostgreSQL's deterministic collations, MariaDB/MySQL {@code *_nopad_bin}, {@code utf8mb4_0900_bin});</li>
 *   <li>{@link #PAD_SPACE}: equal after trailing spaces are removed (MariaDB/MySQL PAD SPACE binary
 *       collations, {@code utf8mb4_bin});</li>
 *   <li>{@link #COLLATED}: anything coarser (case- or accent-insensitive collations, PostgreSQL {@code citext}).
 *       No Java function is proven to match every such collation's equality, so the column is left out of the
 *       hash: the table's keys are spread by their other columns only (all on one partition if there are none).
 *       Exact, at the cost of applier parallelism for that table.</li>
 * </ul>
 *
 * <p>The copier and the {@code PartitionByKey} transform must use the same rules: both derive them from the
 * planned {@link TableDef} with {@link #of(Column)}; the transform gets them in its configuration.
 */
public enum KeyEquality {
    EXACT, PAD_SPACE, COLLATED;

    /** MariaDB/MySQL collation name endings of non-binary collations (case, accent, kana sensitivity). */
    private static final Set<String> LINGUISTIC_SUFFIXES = Set.of("ci", "cs", "ai", "as", "ks");

    public static KeyEquality of(Column c) {
        if (c.kind() != ValueKind.STRING || EnumSetNumbers.isEnum(c) || EnumSetNumbers.isSet(c)) {
            return EXACT;   // ENUM/SET values are read back as the declared member's text on both paths
        }
        if (c.nativeType().toLowerCase(Locale.ROOT).equals("citext")) {
            return COLLATED;
        }
        if (c.collation() == null) {
            return EXACT;
        }
        String coll = c.collation().toLowerCase(Locale.ROOT);
        if (coll.equals("binary") || coll.endsWith("_nopad_bin") || coll.equals("utf8mb4_0900_bin")) {
            return EXACT;
        }
        if (coll.endsWith("_bin")) {
            return PAD_SPACE;
        }
        int underscore = coll.lastIndexOf('_');
        if (underscore > 0 && LINGUISTIC_SUFFIXES.contains(coll.substring(underscore + 1))) {
            return COLLATED;
        }
        // PostgreSQL: nondeterministic collations are refused when the table is planned; every deterministic
        // collation calls two strings equal only when their bytes are.
        return EXACT;
    }

    /** The rules of a table's key columns, in key order. */
    public static List<KeyEquality> of(TableDef table) {
        List<KeyEquality> out = new ArrayList<>(table.keySize());
        for (Column k : table.keyColumns()) {
            out.add(of(k));
        }
        return out;
    }

    /** The value the partition hash uses for a key value under this rule. */
    public Object partitionValue(Object value) {
        return switch (this) {
            case EXACT -> value;
            case PAD_SPACE -> value instanceof String s ? stripTrailingSpaces(s) : value;
            case COLLATED -> value instanceof String ? "" : value;
        };
    }

    private static String stripTrailingSpaces(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        return s.substring(0, end);
    }
}
