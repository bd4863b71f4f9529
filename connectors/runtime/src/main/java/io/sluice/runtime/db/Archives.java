package io.sluice.runtime.db;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.function.IntFunction;

/** Unpacking the server tarballs that Maven artifacts carry (PostgreSQL's from zonky, MySQL's from kill-bill). */
final class Archives {

    private Archives() {
    }

    /**
     * Unpacks {@code tar} into {@code target}, refusing entries that would land outside it. Files get
     * {@code permissions} of their archive mode. {@code absoluteLinks}: whether symbolic links to absolute paths
     * are made too (a tarball may point at its packager's machine, where such links lead nowhere).
     */
    static void untar(TarArchiveInputStream tar, Path target, boolean absoluteLinks,
                      IntFunction<Set<PosixFilePermission>> permissions) throws IOException {
        TarArchiveEntry entry;
        while ((entry = tar.getNextEntry()) != null) {
            Path out = target.resolve(entry.getName()).normalize();
            if (!out.startsWith(target)) {
                throw new IOException("Archive entry escapes the target directory: " + entry.getName());
            }
            if (entry.isDirectory()) {
                Files.createDirectories(out);
            } else if (entry.isSymbolicLink()) {
                if (absoluteLinks || !Path.of(entry.getLinkName()).isAbsolute()) {
                    Files.createDirectories(out.getParent());
                    Files.deleteIfExists(out);
                    Files.createSymbolicLink(out, Path.of(entry.getLinkName()));
                }
            } else {
                Files.createDirectories(out.getParent());
                Files.copy(tar, out, StandardCopyOption.REPLACE_EXISTING);
                Files.setPosixFilePermissions(out, permissions.apply(entry.getMode()));
            }
        }
    }
}
