package io.sluice.app.http;

import io.sluice.app.progress.RuntimeSettings;

/**
 * Steering a running pipeline, behind the HTTP control calls. The pipeline implements it; every method
 * returns quickly (it records the wish, the copier and applier pick it up at their next chunk or batch)
 * and is safe to call from any thread.
 */
public interface Control {

    /** Stops starting new copy chunks; the change stream keeps being applied. */
    void pause();

    /** Undoes {@link #pause}. */
    void resume();

    /** Limits the copy to about {@code rowsPerSecond} rows per second; 0 lifts the limit. */
    void throttle(long rowsPerSecond);

    /**
     * Changes the copy chunk size and/or the applier's rows per statement; null leaves one unchanged.
     * Returns the settings now in effect.
     */
    RuntimeSettings changeSettings(Integer chunkRows, Integer rowsPerWrite);
}
