package io.kafkapixy.zookeeper;

import java.util.Objects;

/**
 * The ZooKeeper paths the original uses: members and partition owners under {@code /consumers} (which list-consumers
 * also reads) and topic config under {@code /config/topics}, every one prefixed by {@code zoo_keeper.chroot},
 * {@code /config/topics} included. Paths are joined as the original's
 * {@code fmt.Sprintf("%s/consumers/%s", chroot, group)} joins them; names are not validated (a name ZooKeeper rejects
 * fails when used, as in the original).
 *
 * <p>The chroot is normalised so that no path has a double slash: trailing slashes are dropped, so {@code "/"} is
 * the root. The original uses it verbatim, so there a trailing slash (as {@code -zookeeperPeers host:2181/} gives)
 * makes every ZooKeeper call fail with an invalid path.
 */
final class ZkPaths {

    private final String chroot;

    /**
     * @param chroot {@code ""} or an absolute ZooKeeper path such as {@code /kafka}; trailing slashes are ignored
     * @throws IllegalArgumentException if the chroot is neither empty nor starts with {@code /}, or has an empty
     *                                  segment ({@code //}) inside
     */
    ZkPaths(String chroot) {
        this.chroot = normalizeChroot(chroot);
    }

    /** The chroot as normalised: {@code ""} or {@code /a[/b...]} without a trailing slash. */
    static String normalizeChroot(String chroot) {
        Objects.requireNonNull(chroot, "chroot");
        int end = chroot.length();
        while (end > 0 && chroot.charAt(end - 1) == '/') {
            end--;
        }
        String normalized = chroot.substring(0, end);
        if (!normalized.isEmpty() && (normalized.charAt(0) != '/' || normalized.contains("//"))) {
            throw new IllegalArgumentException("invalid ZooKeeper chroot \"" + chroot
                    + "\": must be empty or an absolute path like /kafka");
        }
        return normalized;
    }

    /** The normalised chroot, {@code ""} for none. */
    String chroot() {
        return chroot;
    }

    /** {@code <chroot>/consumers}, persistent, never deleted; its children are the groups list-consumers walks. */
    String consumers() {
        return chroot + "/consumers";
    }

    /** {@code <chroot>/consumers/<group>}, persistent. */
    String group(String group) {
        return consumers() + "/" + group;
    }

    /** {@code <chroot>/consumers/<group>/ids}, persistent; its children are the members. */
    String ids(String group) {
        return group(group) + "/ids";
    }

    /** {@code <chroot>/consumers/<group>/ids/<member>}, ephemeral, holding the {@link MemberSpec} JSON. */
    String member(String group, String member) {
        return ids(group) + "/" + member;
    }

    /** {@code <chroot>/consumers/<group>/owners}, persistent. */
    String owners(String group) {
        return group(group) + "/owners";
    }

    /** {@code <chroot>/consumers/<group>/owners/<topic>}, persistent; its children are the claimed partitions. */
    String owners(String group, String topic) {
        return owners(group) + "/" + topic;
    }

    /**
     * {@code <chroot>/consumers/<group>/owners/<topic>/<partition>}, ephemeral, holding the owner's member id as raw
     * UTF-8; the partition in decimal, as Go's {@code %d} writes an int32.
     */
    String owner(String group, String topic, int partition) {
        return owners(group, topic) + "/" + partition;
    }

    /** {@code <chroot>/config/topics/<topic>}: the topic's config JSON, read for {@code withConfig}. */
    String topicConfig(String topic) {
        return chroot + "/config/topics/" + topic;
    }
}
