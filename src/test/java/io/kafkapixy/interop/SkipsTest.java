package io.kafkapixy.interop;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A skipped suite is named on one line, however many lines its tool's error ran to. */
class SkipsTest {

    @Test
    void aToolsErrorOfManyLinesIsCutToItsFirstThatSaysSomething() {
        String npm = "\nnpm error code E403\nnpm error 403 Forbidden - GET https://registry.npmjs.org/@grpc%2fgrpc-js\n"
                     + "npm error A complete log of this run can be found in: /root/.npm/_logs/x.log\n";

        assertEquals("npm error code E403 ...", Skips.oneLine(npm));
        assertEquals("no node and npm", Skips.oneLine("no node and npm"));
    }

    @Test
    void aLongLineIsCut() {
        String line = Skips.oneLine("x".repeat(500));

        assertEquals(164, line.length());
        assertEquals(" ...", line.substring(160));
    }
}
