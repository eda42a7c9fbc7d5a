package io.kafkapixy.security;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A clients file read again while the proxy runs: a new client is let in, a removed one shut out, and a file that
 * breaks keeps the last good one in use (said until the file is fixed), so nothing ever opens up.
 */
class ReloadedFileTest {

    private static final String ONE = "clients:\n  - {name: a, tokens: [ta]}\n";
    private static final String TWO = "clients:\n  - {name: a, tokens: [ta]}\n  - {name: b, tokens: [tb]}\n";
    private static final String ONLY_B = "clients:\n  - {name: b, tokens: [tb]}\n";

    @TempDir
    Path dir;

    @Test
    void aNewClientIsLetInAndARemovedOneShutOut() throws Exception {
        Path file = write(ONE);
        ReloadedFile<ClientsFile> clients = new ReloadedFile<>(file, ClientsFile::parse, "auth.clients_file");
        assertTrue(clients.current().byToken("tb").isEmpty());

        Files.writeString(file, TWO);
        assertTrue(clients.refresh());
        assertEquals("b", clients.current().byToken("tb").orElseThrow().name());

        Files.writeString(file, ONLY_B);
        assertTrue(clients.refresh());
        assertTrue(clients.current().byToken("ta").isEmpty(), "a is shut out");
        assertFalse(clients.refresh(), "unchanged: nothing to do");
    }

    @Test
    void aBrokenFileKeepsTheLastGoodOneUntilItIsFixed() throws Exception {
        Path file = write(TWO);
        ReloadedFile<ClientsFile> clients = new ReloadedFile<>(file, ClientsFile::parse, "auth.clients_file");

        Files.writeString(file, "clients:\n  - {name: a, tokens: [ta], allow: [{operations: [wirte], topics: [t]}]}\n");
        assertFalse(clients.refresh());
        assertEquals("b", clients.current().byToken("tb").orElseThrow().name(), "the last good one in use");
        assertTrue(clients.problem().orElseThrow().contains("unknown operation \"wirte\""), clients.problem().get());

        Files.delete(file);
        assertFalse(clients.refresh());
        assertTrue(clients.problem().orElseThrow().startsWith("cannot read"));
        assertEquals("b", clients.current().byToken("tb").orElseThrow().name());

        Files.writeString(file, ONE);
        assertTrue(clients.refresh());
        assertEquals(Optional.empty(), clients.problem());
        assertTrue(clients.current().byToken("tb").isEmpty());
    }

    @Test
    void aFileWhoseTimeSizeAndIdentityAreUnchangedIsNotReadAgain() throws Exception {
        Path file = write(ONE);
        ReloadedFile<ClientsFile> clients = new ReloadedFile<>(file, ClientsFile::parse, "auth.clients_file");
        FileTime modified = Files.getLastModifiedTime(file);

        Files.writeString(file, ONLY_B);
        Files.setLastModifiedTime(file, modified);
        assertFalse(clients.refresh(), "same time, size and file: not read (a large file is not read every 2 s)");
        assertEquals("a", clients.current().byToken("ta").orElseThrow().name());

        Files.setLastModifiedTime(file, FileTime.fromMillis(modified.toMillis() + 1_000));
        assertTrue(clients.refresh(), "a new time: read");
        assertEquals("b", clients.current().byToken("tb").orElseThrow().name());
    }

    @Test
    void aFileThatCannotBeUsedAtStartStopsTheStart() throws Exception {
        Path broken = write("clients: {}\n");

        assertEquals("auth.clients_file: " + broken + ": clients: a list is needed", assertThrows(
                IllegalArgumentException.class,
                () -> new ReloadedFile<>(broken, ClientsFile::parse, "auth.clients_file")).getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new ReloadedFile<>(dir.resolve("missing.yaml"), ClientsFile::parse, "auth.clients_file"));
    }

    @Test
    void aFileTooLargeToParseInTheHeapIsOneThatCannotBeUsedUntilTheHeapHasRoom() throws Exception {
        Path file = write(ONE);
        java.util.concurrent.atomic.AtomicBoolean heapFull = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.function.Function<String, ClientsFile> parse = text -> {
            if (heapFull.get()) {
                throw new OutOfMemoryError("Java heap space");
            }
            return ClientsFile.parse(text);
        };
        ReloadedFile<ClientsFile> clients = new ReloadedFile<>(file, parse, "auth.clients_file");

        heapFull.set(true);
        Files.writeString(file, TWO);
        assertFalse(clients.refresh());
        assertTrue(clients.problem().orElseThrow().contains("is too large to parse in this heap"),
                clients.problem().get());
        assertEquals("a", clients.current().byToken("ta").orElseThrow().name(), "the last good one in use");

        heapFull.set(false);
        Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 1_000));
        assertTrue(clients.refresh(), "the same content parsed again once read again, unlike one that does not parse");
        assertEquals("b", clients.current().byToken("tb").orElseThrow().name());

        heapFull.set(true);
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new ReloadedFile<>(file, parse, "auth.clients_file")).getMessage()
                .startsWith("auth.clients_file: " + file + ": too large to parse in this heap ("));
    }

    private Path write(String text) throws Exception {
        return Files.writeString(dir.resolve("clients.yaml"), text);
    }
}
