package io.kafkapixy.server.http;

/** Header-name rules of Go's {@code net/textproto}, which decide the original's record header keys. */
final class GoHeaders {

    private GoHeaders() {
    }

    /**
     * Go's {@code CanonicalMIMEHeaderKey}: the first letter and every letter after a hyphen upper-case, the rest
     * lower-case ({@code x-kafka-my-hdr} → {@code X-Kafka-My-Hdr}). A name with a byte that is not a valid token
     * character is returned unchanged, as Go does.
     */
    static String canonical(String name) {
        for (int i = 0; i < name.length(); i++) {
            if (!isTokenChar(name.charAt(i))) {
                return name;
            }
        }
        StringBuilder sb = new StringBuilder(name.length());
        boolean upper = true;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            sb.append(upper ? Character.toUpperCase(c) : Character.toLowerCase(c));
            upper = c == '-';
        }
        return sb.toString();
    }

    private static boolean isTokenChar(char c) {
        if (c >= 0x80 || c <= ' ') {
            return false;
        }
        return "()<>@,;:\\\"/[]?={}".indexOf(c) < 0 && c != 0x7f;
    }
}
