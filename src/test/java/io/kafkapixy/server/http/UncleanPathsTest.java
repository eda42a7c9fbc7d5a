package io.kafkapixy.server.http;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UncleanPathsTest {

    @ParameterizedTest
    @ValueSource(strings = {"/topics//messages", "//topics", "/topics/", "/topics/a/messages/", "/topics/./offsets",
            "/topics/../x", "/clusters//topics", "/topics/%2E%2E/x", "/topics/%2e/x", "/topics/a//"})
    void emptyAndDotSegmentsAreUnclean(String path) {
        assertTrue(UncleanPaths.unclean(path), path);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/_ping", "/topics", "/topics/a.b/messages", "/topics/.../x", "/topics/a%2Fb",
            "/topics/%zz/messages", "/clusters/c/topics/t/offsets"})
    void namesAndDotsInsideNamesAreClean(String path) {
        assertFalse(UncleanPaths.unclean(path), path);
    }
}
