package io.sluice.app.progress;

/**
 * Rows per second from a growing counter, smoothed so one slow chunk does not swing the ETA: an
 * exponentially weighted average over samples, with a weight that depends on the time between samples
 * (a half-life of {@code halfLifeSeconds}), so irregular sampling still gives a steady rate.
 */
public final class RateMeter {
    private final double halfLifeSeconds;
    private long lastCount = -1;
    private long lastNanos;
    private double rate;

    public RateMeter(double halfLifeSeconds) {
        this.halfLifeSeconds = halfLifeSeconds;
    }

    /** Records the counter's value at {@code nanos} (System.nanoTime) and returns the smoothed rate. */
    public synchronized double update(long count, long nanos) {
        if (lastCount < 0) {
            lastCount = count;
            lastNanos = nanos;
            return rate;
        }
        double seconds = (nanos - lastNanos) / 1e9;
        if (seconds <= 0.05) {
            return rate; // too close to the previous sample to say anything
        }
        double instant = Math.max(0, count - lastCount) / seconds;
        double keep = Math.pow(0.5, seconds / halfLifeSeconds);
        rate = rate == 0 ? instant : keep * rate + (1 - keep) * instant;
        lastCount = count;
        lastNanos = nanos;
        return rate;
    }

    public synchronized double rate() {
        return rate;
    }
}
