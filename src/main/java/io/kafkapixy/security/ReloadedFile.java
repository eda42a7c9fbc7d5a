package io.kafkapixy.security;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A file read again when it changes (a clients file, a JWKS): {@link #refresh()} reads it, and a new content that
 * parses replaces the value; one that does not (or a file gone) keeps the last good value and is logged once, as an
 * error, until the file changes again (so does one too large to parse in the heap). Nothing ever opens up because a
 * file went bad. The first read must succeed: a proxy does not start on a file it cannot use. Thread-safe:
 * {@link #current()} may be read while one thread refreshes.
 */
public final class ReloadedFile<T> {

    private static final System.Logger LOG = System.getLogger(ReloadedFile.class.getName());
    private static final long READ_ANYWAY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Path path;
    private final Function<String, T> parse;
    private final String what;
    private volatile T current;
    /** The content last read, good or bad, so that an unchanged file is not parsed or logged again. */
    private String lastText;
    /** The file's stamp when it was last read: an unchanged stamp is not read again (a large file, every 2 s). */
    private Optional<Stamp> lastStamp = Optional.empty();
    private long lastReadNanos;
    private volatile Optional<String> problem = Optional.empty();

    /**
     * @param parse the content's meaning; throws IllegalArgumentException with what is wrong
     * @param what  the setting that names the file, for the logs ({@code auth.clients_file})
     * @throws IllegalArgumentException the file cannot be read or does not parse
     */
    public ReloadedFile(Path path, Function<String, T> parse, String what) {
        this.path = path;
        this.parse = parse;
        this.what = what;
        Optional<Stamp> stamp = Stamp.of(path);
        String text = read().orElseThrow(() -> new IllegalArgumentException(what + ": cannot read " + path));
        this.lastStamp = stamp;
        try {
            this.current = parsed(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": " + path + ": " + e.getMessage());
        }
        this.lastText = text;
    }

    /** The value of the last content that parsed. */
    public T current() {
        return current;
    }

    /** Why the file's present content is not in use; empty when it is. */
    public Optional<String> problem() {
        return problem;
    }

    /**
     * Reads the file; a changed content that parses becomes {@link #current()}.
     *
     * @return whether the value changed
     */
    public synchronized boolean refresh() {
        Optional<Stamp> stamp = Stamp.of(path);
        // a same-size rewrite within the file system's timestamp tick keeps the stamp: read once a minute anyway
        if (stamp.isPresent() && stamp.equals(lastStamp) && System.nanoTime() - lastReadNanos < READ_ANYWAY_NANOS) {
            return false;
        }
        lastStamp = stamp;
        Optional<String> text = read();
        if (text.isEmpty()) {
            report("cannot read " + path + "; the last good one stays in use", null);
            return false;
        }
        if (Objects.equals(text.get(), lastText)) {
            return false;
        }
        lastText = text.get();
        try {
            current = parsed(text.get());
        } catch (TooLarge e) {
            report(path + " changed and is " + e.getMessage() + "; the last good one stays in use", text.get());
            // not a fault of the content: parsed again at the next read (within a minute), if the heap has room then
            lastText = null;
            return false;
        } catch (IllegalArgumentException e) {
            report(path + " changed and does not parse: " + e.getMessage() + "; the last good one stays in use",
                    text.get());
            return false;
        }
        problem = Optional.empty();
        LOG.log(Level.INFO, what + ": " + path + " read again");
        return true;
    }

    /**
     * A content too large for the heap to parse is one that cannot be used, like one that does not parse: the parse's
     * garbage is gone once it has failed, and the proxy goes on with the last good one (what a clients file needs:
     * docs/operations.md#security).
     */
    private T parsed(String text) {
        try {
            return parse.apply(text);
        } catch (OutOfMemoryError e) {
            throw new TooLarge("too large to parse in this heap (" + text.length() + " characters, the heap at most "
                               + (Runtime.getRuntime().maxMemory() >> 20) + " MiB)");
        }
    }

    private static final class TooLarge extends IllegalArgumentException {
        TooLarge(String message) {
            super(message);
        }
    }

    private void report(String why, String text) {
        if (text == null) {
            lastText = null;
        }
        if (!problem.equals(Optional.of(why))) {
            problem = Optional.of(why);
            LOG.log(Level.ERROR, what + ": " + why);
        }
    }

    private Optional<String> read() {
        lastReadNanos = System.nanoTime();
        try {
            return Optional.of(Files.readString(path, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * What tells a changed file without reading it: its modification time, size and identity (a Kubernetes Secret
     * or ConfigMap update swaps a symbolic link to a new file, which the path resolves to).
     */
    private record Stamp(FileTime modified, long size, Object fileKey) {

        static Optional<Stamp> of(Path path) {
            try {
                BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
                return Optional.of(new Stamp(a.lastModifiedTime(), a.size(), a.fileKey()));
            } catch (IOException e) {
                return Optional.empty();
            }
        }
    }
}
