package io.sluice.verify;

import io.sluice.spi.model.TableId;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How one table compared.
 *
 * @param source          source table
 * @param target          target table
 * @param method          how it was compared
 * @param rowsChecked     source rows the first pass covered
 * @param chunks          chunks of the first pass
 * @param rechecks        re-check rounds run after the first pass (each waits for the stream to catch up)
 * @param differences     the first differing keys that did not converge, at most {@code verify.max-differences}
 * @param differenceCount all differing keys that did not converge (may exceed the list)
 * @param error           why the table could not be compared (then it is not equal), or null
 * @param elapsed         wall time for the table
 */
public record TableResult(TableId source, TableId target, Method method, long rowsChecked, long chunks, int rechecks,
                          List<Difference> differences, long differenceCount, String error, Duration elapsed) {

    public enum Method {
        /** Same engine and column types: per-chunk hashes computed by both servers, rows fetched only on mismatch. */
        HASH,
        /** Rows read on both sides into canonical values and compared on the client, target looked up by key. */
        ROWS
    }

    public TableResult {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(target, "target");
        differences = List.copyOf(differences);
    }

    public boolean equal() {
        return error == null && differenceCount == 0;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder().append(source).append(" -> ").append(target).append(": ");
        if (error != null) {
            sb.append("could not compare: ").append(error);
        } else if (differenceCount == 0) {
            sb.append("equal (").append(rowsChecked).append(" rows, ").append(method.name().toLowerCase(java.util.Locale.ROOT)).append(')');
        } else {
            sb.append(differenceCount).append(differenceCount == 1 ? " difference" : " differences");
            for (Difference d : differences) {
                sb.append("\n    ").append(d);
            }
            if (differenceCount > differences.size()) {
                sb.append("\n    … and ").append(differenceCount - differences.size()).append(" more");
            }
        }
        return sb.toString();
    }
}
