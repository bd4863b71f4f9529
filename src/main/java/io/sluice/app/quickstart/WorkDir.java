package io.sluice.app.quickstart;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The quickstart's work directory. Clean-up removes only what the quickstart puts there (its named
 * subdirectories), then the directories it created itself if they are empty: {@code --work-dir} may name a
 * directory that holds other things, and those must survive.
 */
final class WorkDir {
    private static final Logger log = LoggerFactory.getLogger(WorkDir.class);
    /** Everything the quickstart creates directly under the work directory. */
    private static final List<String> ENTRIES = List.of("source-postgres", "source-mariadb", "target-postgres", "kafka", "binaries");

    private final Path path;
    private Path createdFrom;
    private boolean created;

    WorkDir(Path path) {
        this.path = path.toAbsolutePath().normalize();
    }

    Path path() {
        return path;
    }

    /** Creates the directory, remembering the outermost directory that did not exist before. */
    void create() {
        for (Path p = path; p != null && !Files.exists(p); p = p.getParent()) {
            createdFrom = p;
        }
        try {
            Files.createDirectories(path);
            created = true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the work directory " + path + ": " + e.getMessage(), e);
        }
    }

    /** Whether {@link #create()} ran: before that, nothing there belongs to this run. */
    boolean created() {
        return created;
    }

    /** Deletes a file or directory tree; a failure is logged, not thrown (clean-up goes on). */
    void delete(Path target) {
        if (!Files.exists(target)) {
            return;
        }
        try (Stream<Path> all = Files.walk(target)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            log.warn("Could not delete {}: {}", target, e.getMessage());
        }
    }

    /** Removes the quickstart's entries, then the work directory and the parents created for it, if empty. */
    void removeAll() {
        ENTRIES.forEach(e -> delete(path.resolve(e)));
        Path stopAt = createdFrom == null ? path : createdFrom;
        for (Path p = path; p != null && p.startsWith(stopAt); p = p.getParent()) {
            try (Stream<Path> children = Files.list(p)) {
                if (children.findAny().isPresent()) {
                    return;
                }
            } catch (IOException e) {
                return;
            }
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                log.warn("Could not delete {}: {}", p, e.getMessage());
                return;
            }
        }
    }
}
