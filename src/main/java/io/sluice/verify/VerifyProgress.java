package io.sluice.verify;

/**
 * Where a verify run is.
 *
 * @param rowsChecked   source rows compared so far (first passes of all tables)
 * @param rowsEstimated the sources' row estimates from statistics, summed (0 when unknown; may be exceeded)
 * @param rowsPerSecond rows checked per second since the run started
 * @param tablesDone    tables finished (equal, different or failed)
 * @param tablesTotal   tables in the run
 */
public record VerifyProgress(long rowsChecked, long rowsEstimated, double rowsPerSecond, int tablesDone, int tablesTotal) {

    /** Fraction done in [0, 1], or -1 while the estimate is unknown; below 1 until every table is done. */
    public double fraction() {
        if (tablesDone == tablesTotal) {
            return 1.0;
        }
        return rowsEstimated <= 0 ? -1 : Math.min(0.99, (double) rowsChecked / rowsEstimated);
    }
}
