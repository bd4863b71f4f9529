package io.sluice.app.progress;

/**
 * Whether the copy is held back.
 *
 * @param paused             copying stopped by a pause call (streaming continues)
 * @param rowsPerSecondLimit copy rate limit, 0 for none
 * @param reason             why, for people: "paused by POST /control/pause", "replica lag", or empty
 */
public record ThrottleState(boolean paused, long rowsPerSecondLimit, String reason) {
    public static final ThrottleState NONE = new ThrottleState(false, 0, "");

    public ThrottleState {
        reason = reason == null ? "" : reason;
    }
}
