"""The gRPC interop scenario (see ../README.md) from Python's grpcio, built on gRPC C-core.

Usage: interop.py HOST:PORT TOPIC GROUP [CA_FILE]   (stubs generated into the working directory)
Prints one JSON object per step on stdout.
"""
import json
import sys
import time

import grpc

import kafkapixy_pb2 as pb
import kafkapixy_pb2_grpc as pbg

TIMEOUT = 30


def out(step, **fields):
    print(json.dumps(dict(step=step, **fields)), flush=True)


def failure(e):
    return dict(code=e.code().name, details=e.details())


def message(m):
    return dict(partition=m.partition, offset=m.offset, key=m.key_value.decode(), message=m.message.decode(),
                headers=[[h.key, h.value.decode()] for h in m.headers])


def consume(stub, rq):
    """The next message; NOT_FOUND (long polling timeout) means nothing yet: ask again."""
    for _ in range(30):
        try:
            return stub.ConsumeNAck(rq, timeout=TIMEOUT)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.NOT_FOUND:
                raise
    raise RuntimeError("nothing consumed")


def wait_for_start(stub, topic, group):
    """Until the group has joined and committed where it starts: what is produced after that is delivered."""
    for _ in range(150):
        rs = stub.GetOffsets(pb.GetOffsetsRq(topic=topic, group=group), timeout=TIMEOUT)
        if all(o.offset != -1 for o in rs.offsets):
            return
        time.sleep(0.2)
    raise RuntimeError("the group never committed its start")


def main(target, topic, group, ca_file=None):
    if ca_file:
        with open(ca_file, "rb") as f:
            channel = grpc.secure_channel(target, grpc.ssl_channel_credentials(root_certificates=f.read()))
    else:
        channel = grpc.insecure_channel(target)
    stub = pbg.KafkaPixyStub(channel)
    lang = "python"

    rs = stub.Produce(pb.ProdRq(topic=topic, key_value=b"key-" + lang.encode(), message=b"sync-" + lang.encode(),
                                headers=[pb.RecordHeader(key="h1", value=b"v1")]), timeout=TIMEOUT)
    out("produce_sync", partition=rs.partition, offset=rs.offset)
    rs = stub.Produce(pb.ProdRq(topic=topic, key_value=b"key-" + lang.encode(), message=b"async-" + lang.encode(),
                                async_mode=True), timeout=TIMEOUT)
    out("produce_async", partition=rs.partition, offset=rs.offset)

    try:
        stub.ConsumeNAck(pb.ConsNAckRq(topic=topic, group=group, no_ack=True), timeout=TIMEOUT)
        out("first_consume", code="OK")
    except grpc.RpcError as e:
        out("first_consume", **failure(e))

    wait_for_start(stub, topic, group)
    for i in (1, 2, 3):
        rs = stub.Produce(pb.ProdRq(topic=topic, message=("m%d-%s" % (i, lang)).encode(),
                                    headers=[pb.RecordHeader(key="n", value=str(i).encode())]), timeout=TIMEOUT)
        out("produce_m", partition=rs.partition, offset=rs.offset)

    m = consume(stub, pb.ConsNAckRq(topic=topic, group=group, no_ack=True))
    out("consumed", **message(m))
    stub.Ack(pb.AckRq(topic=topic, group=group, partition=m.partition, offset=m.offset), timeout=TIMEOUT)
    out("acked", partition=m.partition, offset=m.offset)

    rq = pb.ConsNAckRq(topic=topic, group=group, no_ack=True)
    for _ in (2, 3):
        m = consume(stub, rq)
        out("consumed", **message(m))
        rq = pb.ConsNAckRq(topic=topic, group=group, ack_partition=m.partition, ack_offset=m.offset)
    stub.Ack(pb.AckRq(topic=topic, group=group, partition=m.partition, offset=m.offset), timeout=TIMEOUT)
    out("acked", partition=m.partition, offset=m.offset)

    rs = stub.GetOffsets(pb.GetOffsetsRq(topic=topic, group=group), timeout=TIMEOUT)
    out("offsets", partitions=[dict(partition=o.partition, begin=o.begin, end=o.end, count=o.count, offset=o.offset)
                               for o in rs.offsets])

    rs = stub.ListTopics(pb.ListTopicRq(), timeout=TIMEOUT)
    out("list_topics", has_topic=topic in rs.topics)

    try:
        stub.Produce(pb.ProdRq(cluster="no-such-cluster", topic=topic, message=b"x"), timeout=TIMEOUT)
        out("unknown_cluster", code="OK")
    except grpc.RpcError as e:
        out("unknown_cluster", **failure(e))


if __name__ == "__main__":
    main(*sys.argv[1:])
