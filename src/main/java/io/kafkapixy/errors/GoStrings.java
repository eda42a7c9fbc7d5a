package io.kafkapixy.errors;

/**
 * Go's {@code %q} ({@code strconv.Quote}) for the cases the original's error texts show: quotes, backslashes and
 * control characters escaped, everything else as it is. Error texts that quote a client's or a config's value use it,
 * so they read exactly as the original's.
 */
public final class GoStrings {

    private GoStrings() {
    }

    public static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format("\\x%02x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
