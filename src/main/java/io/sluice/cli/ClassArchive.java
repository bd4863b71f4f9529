package io.sluice.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The launcher's class-data archive (bin/sluice): the first run of a command that starts the runtime has the JVM
 * write the classes it loaded into an archive at exit, which later launches map instead of loading them from the
 * jars. A run that was refused (a config error, a server that cannot be reached) loaded only a fraction of them, so
 * the launcher keeps an archive only when its run says it got through: this marker, written when the command
 * completed or was stopped by a signal (exit 0 or 130; a replication runs until it is stopped).
 */
final class ClassArchive {

    /** Set by the launcher to the path the JVM writes the archive to at exit; absent when it writes none. */
    static final String PARTIAL_PROPERTY = "sluice.cds.partial";

    private ClassArchive() {
    }

    static void runSucceeded() {
        String partial = System.getProperty(PARTIAL_PROPERTY);
        if (partial == null || partial.isBlank()) {
            return;
        }
        try {
            Files.writeString(Path.of(partial + ".ok"), "");
        } catch (IOException | RuntimeException e) {
            // Without the marker the launcher drops the archive and the next run writes another: only slower.
        }
    }
}
