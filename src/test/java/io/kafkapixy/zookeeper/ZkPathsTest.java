package io.kafkapixy.zookeeper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The original's ZooKeeper paths: every one with the chroot applied, {@code /config/topics} too; no double slashes. */
class ZkPathsTest {

    @Test
    void withoutChroot() {
        ZkPaths paths = new ZkPaths("");
        assertThat(paths.chroot(), is(""));
        assertThat(paths.consumers(), is("/consumers"));
        assertThat(paths.group("g1"), is("/consumers/g1"));
        assertThat(paths.ids("g1"), is("/consumers/g1/ids"));
        assertThat(paths.member("g1", "kp_host_1234"), is("/consumers/g1/ids/kp_host_1234"));
        assertThat(paths.owners("g1"), is("/consumers/g1/owners"));
        assertThat(paths.owners("g1", "topic.a"), is("/consumers/g1/owners/topic.a"));
        assertThat(paths.owner("g1", "topic.a", 0), is("/consumers/g1/owners/topic.a/0"));
        assertThat(paths.owner("g1", "topic.a", 17), is("/consumers/g1/owners/topic.a/17"));
        assertThat(paths.topicConfig("topic.a"), is("/config/topics/topic.a"));
    }

    @Test
    void withChroot() {
        ZkPaths paths = new ZkPaths("/kafka");
        assertThat(paths.chroot(), is("/kafka"));
        assertThat(paths.consumers(), is("/kafka/consumers"));
        assertThat(paths.group("g1"), is("/kafka/consumers/g1"));
        assertThat(paths.ids("g1"), is("/kafka/consumers/g1/ids"));
        assertThat(paths.member("g1", "kp_host_1234"), is("/kafka/consumers/g1/ids/kp_host_1234"));
        assertThat(paths.owners("g1"), is("/kafka/consumers/g1/owners"));
        assertThat(paths.owners("g1", "topic.a"), is("/kafka/consumers/g1/owners/topic.a"));
        assertThat(paths.owner("g1", "topic.a", 3), is("/kafka/consumers/g1/owners/topic.a/3"));
        assertThat(paths.topicConfig("topic.a"), is("/kafka/config/topics/topic.a"));
    }

    @Test
    void nestedChroot() {
        ZkPaths paths = new ZkPaths("/a/b-c.d");
        assertThat(paths.member("g", "m"), is("/a/b-c.d/consumers/g/ids/m"));
        assertThat(paths.topicConfig("t"), is("/a/b-c.d/config/topics/t"));
    }

    @Test
    void trailingSlashesAreDroppedSoNoPathHasADoubleSlash() {
        assertThat(new ZkPaths("/").consumers(), is("/consumers"));
        assertThat(new ZkPaths("/").topicConfig("t"), is("/config/topics/t"));
        assertThat(new ZkPaths("/kafka/").owner("g", "t", 1), is("/kafka/consumers/g/owners/t/1"));
        assertThat(new ZkPaths("/kafka//").chroot(), is("/kafka"));
    }

    @Test
    void partitionsAreDecimalInt32() {
        assertThat(new ZkPaths("").owner("g", "t", Integer.MAX_VALUE), is("/consumers/g/owners/t/2147483647"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"kafka", "kafka/", "/a//b", " /kafka"})
    void rejectsChrootsThatAreNotAbsolutePaths(String chroot) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ZkPaths(chroot));
        assertThat(e.getMessage(), is("invalid ZooKeeper chroot \"" + chroot
                + "\": must be empty or an absolute path like /kafka"));
    }

    @Test
    void rejectsNullChroot() {
        assertThrows(NullPointerException.class, () -> new ZkPaths(null));
    }
}
