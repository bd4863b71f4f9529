package io.sluice.app.progress;

/**
 * The settings that can change while a run goes on (POST /control/settings).
 *
 * @param chunkRows    rows per copy chunk (one short source transaction each)
 * @param rowsPerWrite rows per statement the applier writes
 */
public record RuntimeSettings(int chunkRows, int rowsPerWrite) {
}
