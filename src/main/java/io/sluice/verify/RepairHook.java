package io.sluice.verify;

import io.sluice.spi.model.TableId;

import java.util.List;

/**
 * Re-copies what verify found different, through the pipeline (implemented there: the copier re-reads the
 * ranges in fresh chunks, so their merge with the change stream stays position-ordered). The verifier calls
 * it at most once per table, for what still differs after the first re-check, and then keeps re-checking
 * until the deadline as usual: a repair is only trusted once the tables compare equal.
 */
@FunctionalInterface
public interface RepairHook {

    /** Requests the re-copy; may return before it is applied (re-checks wait for it). */
    void repair(Request request) throws Exception;

    /**
     * @param source       the source table
     * @param target       the target table
     * @param sourceRanges source key ranges whose rows differ (missing in target, or different values)
     * @param extraKeys    keys only the target has, as far as reported (see {@code verify.max-differences}):
     *                     a re-copy of source ranges cannot remove them, the pipeline must delete them
     * @param differences  the differing keys known so far (at most {@code verify.max-differences})
     */
    record Request(TableId source, TableId target, List<KeyRange> sourceRanges, List<Object[]> extraKeys,
                   List<Difference> differences) {
        public Request {
            sourceRanges = List.copyOf(sourceRanges);
            extraKeys = List.copyOf(extraKeys);
            differences = List.copyOf(differences);
        }
    }
}
