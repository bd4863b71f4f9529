package io.sluice.cli;

/**
 * The exit codes of every {@code sluice} command. Stable: scripts depend on them (docs/cli.md lists them).
 * Codes are never reused for another meaning; new ones get new numbers.
 */
public enum ExitCode {
    /** Done, or (for verify) source and target are equal. */
    OK(0, "success"),
    /** The command line or the config file is wrong, or the servers do not meet the config (nothing was changed). */
    CONFIG_ERROR(2, "invalid command line or configuration; nothing was changed"),
    /** verify found differences that did not converge (or cut-over was refused because verify failed). */
    VERIFICATION_FAILED(3, "verification failed: source and target differ"),
    /** The run failed after it started (server lost, connector failed...), or the command is not available in this build. */
    RUNTIME_FAILURE(4, "runtime failure"),
    /** Stopped by Ctrl-C or SIGTERM after a clean stop; running the same command again resumes. */
    INTERRUPTED(130, "interrupted; run again to resume");

    private final int code;
    private final String meaning;

    ExitCode(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    public int code() {
        return code;
    }

    public String meaning() {
        return meaning;
    }
}
