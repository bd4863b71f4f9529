package io.sluice.app.progress;

import java.time.Duration;

/**
 * How close one change partition is to losing an unapplied event to the topic's retention: the age of the oldest
 * event the applier has not applied yet, against {@code retention.ms}, and the bytes from it to the log end, against
 * {@code retention.bytes}. Retention deletes whole segments from the log start, so an unapplied event is lost once
 * either share reaches 1; {@link #WARN_AT} gives the operator the other half of the retention to act.
 *
 * @param topic             the change topic
 * @param partition         its partition
 * @param unappliedEvents   events from the applier's committed offset to the log end (0: caught up)
 * @param oldestUnapplied   age of the oldest unapplied event (its Kafka timestamp); zero when caught up, null when unknown
 * @param retention         the topic's retention.ms; null when unlimited
 * @param unappliedBytes    estimated bytes of the unapplied events (the partition's size pro rata); -1 when unknown
 * @param retentionBytes    the topic's retention.bytes; -1 when unlimited
 * @param lost              unapplied events are already gone (the committed offset is below the log start)
 */
public record RetentionUse(String topic, int partition, long unappliedEvents, Duration oldestUnapplied, Duration retention,
                           long unappliedBytes, long retentionBytes, boolean lost) {
    /** The share of the retention from which {@code status} warns and the alert fires. */
    public static final double WARN_AT = 0.5;

    /** The larger of the time and size shares of the retention used by unapplied events (1 or more when lost). */
    public double used() {
        if (lost) {
            return 1;
        }
        double byTime = retention == null || oldestUnapplied == null || retention.isZero() ? 0
                : (double) oldestUnapplied.toMillis() / retention.toMillis();
        double bySize = retentionBytes <= 0 || unappliedBytes < 0 ? 0 : (double) unappliedBytes / retentionBytes;
        return Math.max(byTime, bySize);
    }

    public boolean warn() {
        return used() >= WARN_AT;
    }

    /** {@code orders partition 3: oldest unapplied event 2h07m old, 30% of retention (7d, unlimited bytes)}. */
    public String describe() {
        String where = topic + " partition " + partition;
        if (lost) {
            return where + ": unapplied events were deleted by retention (the applier stops on them; copy the table again)";
        }
        if (unappliedEvents == 0) {
            return where + ": nothing unapplied";
        }
        return where + ": " + ProgressFormat.count(unappliedEvents) + " unapplied, oldest "
                + ProgressFormat.duration(oldestUnapplied) + " old, " + Math.round(used() * 100) + "% of retention ("
                + (retention == null ? "unlimited" : ProgressFormat.duration(retention)) + ", "
                + (retentionBytes <= 0 ? "unlimited bytes" : ProgressFormat.count(retentionBytes) + "B") + ")";
    }
}
