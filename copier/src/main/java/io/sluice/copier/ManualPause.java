package io.sluice.copier;

import io.sluice.spi.model.TableId;

import java.time.Duration;

/** An operator's pause switch: while paused, no new chunk starts (a chunk being read finishes). */
public final class ManualPause implements Throttler {
    private final Duration recheck;
    private volatile boolean paused;

    public ManualPause(Duration recheck) {
        this.recheck = recheck;
    }

    public void pause() {
        paused = true;
    }

    public void resume() {
        paused = false;
    }

    public boolean paused() {
        return paused;
    }

    @Override
    public Duration delay(TableId table) {
        return paused ? recheck : Duration.ZERO;
    }
}
