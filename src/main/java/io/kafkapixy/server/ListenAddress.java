package io.kafkapixy.server;

/** A Go-style {@code host:port} listen address; an empty host ({@code :19092}) means every interface. */
record ListenAddress(String host, int port) {

    static ListenAddress parse(String key, String address) {
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(key + " must be host:port, got \"" + address + "\"");
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " has an invalid port: \"" + address + "\"");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(key + " has an invalid port: \"" + address + "\"");
        }
        return new ListenAddress(host.isEmpty() ? "0.0.0.0" : host, port);
    }
}
