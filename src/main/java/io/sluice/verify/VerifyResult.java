package io.sluice.verify;

import java.time.Duration;
import java.util.List;

/**
 * The outcome of one verify run: every table's result. The CLI maps {@link #equal()} to exit status 0 and
 * anything else to its verification-failure status.
 */
public record VerifyResult(List<TableResult> tables, Duration elapsed) {

    public VerifyResult {
        tables = List.copyOf(tables);
    }

    /** True only when every table was compared and matched; an error or a difference in any table makes it false. */
    public boolean equal() {
        return tables.stream().allMatch(TableResult::equal);
    }

    public List<TableResult> differing() {
        return tables.stream().filter(t -> !t.equal()).toList();
    }

    /** A report for people: one line per equal table, the differing keys of the others. */
    public String report() {
        StringBuilder sb = new StringBuilder();
        for (TableResult t : tables) {
            sb.append(t).append('\n');
        }
        long rows = tables.stream().mapToLong(TableResult::rowsChecked).sum();
        sb.append(equal() ? "verify: equal" : "verify: NOT equal (" + differing().size() + " of " + tables.size() + " tables)")
                .append(", ").append(rows).append(" rows in ").append(elapsed.toMillis()).append(" ms");
        return sb.toString();
    }
}
