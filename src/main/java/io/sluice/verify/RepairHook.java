package io.sluice.verify;

import io.sluice.spi.model.TableId;

import java.util.List;

/**
 * Rewrites what verify found different, through the pipeline (implemented there: the applier re-reads the
 * keys from the source at a point of its stream, so a repair never overwrites a newer change; see
 * docs/design/merge.md, "Repairs"). The verifier calls it for what still differs after the first re-check, and
 * again for what still differs {@code verify.repair-retry} later (an applier may pass over a repair it cannot do
 * safely yet), and keeps re-checking until the deadline as usual: a repair is only trusted once the tables
 * compare equal. Repeating a repair is harmless: each re-reads the source at its own point of the stream.
 */
@FunctionalInterface
public interface RepairHook {

    /** Differing keys handed to one repair of one table, at most; a run with more repairs these and reports the rest. */
    int MAX_KEYS = 100_000;

    /** Requests the re-copy; may return before it is applied (re-checks wait for it). */
    void repair(Request request) throws Exception;

    /**
     * @param source       the source table
     * @param target       the target table
     * @param sourceRanges source key ranges whose rows differ (missing in target, or different values)
     * @param extraKeys    keys only the target has, as far as reported (see {@code verify.max-differences}):
     *                     a re-copy of source ranges cannot remove them, the pipeline must delete them
     * @param differences  the differing keys known so far (at most {@code verify.max-differences})
     * @param keys         every differing key the latest check found, of any kind (at most {@link #MAX_KEYS}),
     *                     in the source's canonical key form
     */
    record Request(TableId source, TableId target, List<KeyRange> sourceRanges, List<Object[]> extraKeys,
                   List<Difference> differences, List<Object[]> keys) {
        public Request {
            sourceRanges = List.copyOf(sourceRanges);
            extraKeys = List.copyOf(extraKeys);
            differences = List.copyOf(differences);
            keys = List.copyOf(keys);
        }
    }
}
