package io.sluice.app.progress;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PhaseTrackerTest {

    @Test
    void entersEachPhaseOnceTellsListenersAndKeepsWhenEachWasEntered() {
        PhaseTracker<Phase> phases = new PhaseTracker<>(LoggerFactory.getLogger(PhaseTrackerTest.class), "pipeline t", Phase.STARTING);
        List<String> heard = new ArrayList<>();
        phases.onEnter(e -> heard.add(e.phase() + ":" + e.detail()));

        assertThat(phases.enter(Phase.CREATING, "topics")).isTrue();
        var since = phases.since();
        // Staying in a phase only replaces its detail: no listener call, the same start time.
        assertThat(phases.enter(Phase.CREATING, "still topics")).isFalse();
        assertThat(phases.since()).isEqualTo(since);
        assertThat(phases.detail()).isEqualTo("still topics");
        phases.enter(Phase.COPYING);

        assertThat(heard).containsExactly("CREATING:topics", "COPYING:");
        assertThat(phases.phase()).isEqualTo(Phase.COPYING);
        assertThat(phases.history()).containsOnlyKeys(Phase.STARTING, Phase.CREATING, Phase.COPYING);
        assertThat(PhaseTracker.label(Phase.WAITING_FOR_STREAM)).isEqualTo("waiting for stream");
    }

    @Test
    void aRunWithoutAnInitialPhaseIsInNoneUntilItEntersOne() {
        PhaseTracker<Phase> phases = new PhaseTracker<>(LoggerFactory.getLogger(PhaseTrackerTest.class), "bench", Phase.class);
        assertThat(phases.phase()).isNull();
        assertThat(phases.history()).isEmpty();
        phases.enter(Phase.COPYING, "copy-pg");
        assertThat(phases.phase()).isEqualTo(Phase.COPYING);
    }

    @Test
    void aListenerThatThrowsStopsTheRunAfterThePhaseIsEntered() {
        PhaseTracker<Phase> phases = new PhaseTracker<>(LoggerFactory.getLogger(PhaseTrackerTest.class), "alter t", Phase.STARTING);
        phases.onEnter(e -> {
            throw new IllegalStateException("stop at " + e.phase());
        });
        assertThatThrownBy(() -> phases.enter(Phase.STREAMING)).hasMessage("stop at STREAMING");
        assertThat(phases.phase()).isEqualTo(Phase.STREAMING);
    }
}
