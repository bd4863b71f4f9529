package io.sluice.applier;

/**
 * Another applier claimed a partition this one was writing: its commit would overwrite the newer owner's
 * progress, so it is refused and this applier stops.
 */
public class FencedException extends ApplierException {
    public FencedException(String message) {
        super(message);
    }
}
