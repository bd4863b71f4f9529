package io.sluice.app.progress;

import org.slf4j.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Where a run is, for the runs that go through phases in order (replicate, alter, bench): one place that moves the
 * phase on, logs each phase entered, keeps when each was entered, and tells listeners (progress displays, tests
 * that act at an exact point). Readable from any thread; {@link #enter} is called by the run's own thread.
 *
 * @param <P> the run's phases
 */
public final class PhaseTracker<P extends Enum<P>> {
    /** A phase entered: when, and what the run said about it (the last detail given while in it). */
    public record Entered<P>(P phase, Instant since, String detail) {
    }

    private final Logger log;
    private final String subject;
    private final Map<P, Instant> history;
    private final List<Consumer<Entered<P>>> listeners = new CopyOnWriteArrayList<>();
    private volatile Entered<P> current;

    /**
     * @param log     the run's own logger (phase lines read as the run's)
     * @param subject what is running, for the log ("pipeline shop", "alter public.t")
     */
    public PhaseTracker(Logger log, String subject, P initial) {
        this(log, subject, initial.getDeclaringClass());
        this.current = new Entered<>(initial, Instant.now(), "");
        history.put(initial, current.since());
    }

    /** A run that is in none of its phases until it enters the first ({@link #phase()} is null until then). */
    public PhaseTracker(Logger log, String subject, Class<P> phases) {
        this.log = log;
        this.subject = subject;
        this.history = Collections.synchronizedMap(new EnumMap<>(phases));
        this.current = new Entered<>(null, Instant.now(), "");
    }

    /**
     * Moves to {@code phase}, or, when the run is in it already, only replaces its detail. Listeners hear of a phase
     * entered (not of a new detail), on the caller's thread, before the caller starts the phase's work; a listener
     * that throws stops the run. Returns whether the phase was entered now.
     */
    public boolean enter(P phase, String detail) {
        Entered<P> was = current;
        if (was.phase() == phase) {
            current = new Entered<>(phase, was.since(), detail);
            return false;
        }
        current = new Entered<>(phase, Instant.now(), detail);
        history.put(phase, current.since());
        if (detail.isEmpty()) {
            log.info("{}: {}", subject, label(phase));
        } else {
            log.info("{}: {} ({})", subject, label(phase), detail);
        }
        for (Consumer<Entered<P>> l : listeners) {
            l.accept(current);
        }
        return true;
    }

    public boolean enter(P phase) {
        return enter(phase, "");
    }

    public P phase() {
        return current.phase();
    }

    public Instant since() {
        return current.since();
    }

    public String detail() {
        return current.detail();
    }

    public Entered<P> current() {
        return current;
    }

    /** How long the current phase has lasted so far. */
    public Duration elapsed() {
        return Duration.between(current.since(), Instant.now());
    }

    /** When each phase entered so far was last entered. */
    public Map<P, Instant> history() {
        synchronized (history) {
            return Map.copyOf(history);
        }
    }

    /** Calls {@code listener} with each phase entered from now on (see {@link #enter}). */
    public void onEnter(Consumer<Entered<P>> listener) {
        listeners.add(listener);
    }

    /** A phase as people read it: {@code WAITING_FOR_STREAM} is "waiting for stream". */
    public static String label(Enum<?> phase) {
        return phase.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
}
