package io.sluice.cli;

/** A failure a command reports with a message for people and a documented exit code; no stack trace. */
public final class CliFailure extends RuntimeException {
    private final ExitCode exitCode;

    public CliFailure(ExitCode exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public CliFailure(ExitCode exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public ExitCode exitCode() {
        return exitCode;
    }

    /** For commands whose shape is fixed but whose work is not in this build yet. */
    public static CliFailure notImplemented(String command, String why) {
        return new CliFailure(ExitCode.RUNTIME_FAILURE, "sluice " + command + " is not implemented yet in this build: " + why);
    }
}
