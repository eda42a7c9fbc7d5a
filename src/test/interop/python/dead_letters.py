"""Renewals, rejects and the dead-letter topic from Python's grpcio (see ../README.md).

Usage: dead_letters.py HOST:PORT TOPIC GROUP   (stubs generated into the working directory; the proxy has
consumer.dead_letter_topic set, and the group reads TOPIC from its oldest message)
Produces two messages; the first is taken with ConsumeNAck, renewed with PixyStream.Renew and rejected with
PixyStream.Reject; the second is taken on a PixyStream.Consume stream, renewed and rejected in the stream's requests.
Prints one JSON object per step on stdout.
"""
import json
import queue
import sys

import grpc

import kafkapixy_pb2 as pb
import kafkapixy_pb2_grpc as pbg
import kafkapixy_stream_pb2 as spb
import kafkapixy_stream_pb2_grpc as spbg

TIMEOUT = 30


def out(step, **fields):
    print(json.dumps(dict(step=step, **fields)), flush=True)


def main(target, topic, group):
    channel = grpc.insecure_channel(target)
    stub = pbg.KafkaPixyStub(channel)
    stream = spbg.PixyStreamStub(channel)

    for i in (1, 2):
        rs = stub.Produce(pb.ProdRq(topic=topic, key_value=b"k%d" % i, message=b"m%d" % i,
                                    headers=[pb.RecordHeader(key="h", value=b"v")]), timeout=TIMEOUT)
        out("produced", offset=rs.offset)

    m = None
    for _ in range(30):
        try:
            m = stub.ConsumeNAck(pb.ConsNAckRq(topic=topic, group=group, no_ack=True), timeout=TIMEOUT)
            break
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.NOT_FOUND:
                raise
    out("consumed", offset=m.offset, message=m.message.decode())
    ref = dict(topic=topic, group=group, partition=m.partition, offset=m.offset)
    stream.Renew(spb.RenewRequest(**ref), timeout=TIMEOUT)
    out("renewed", offset=m.offset)
    stream.Reject(spb.RejectRequest(**ref), timeout=TIMEOUT)
    out("rejected", offset=m.offset)
    try:
        stream.Renew(spb.RenewRequest(**ref), timeout=TIMEOUT)
        out("renewed_after_reject", code="OK")
    except grpc.RpcError as e:
        out("renewed_after_reject", code=e.code().name, details=e.details())

    outbox = queue.Queue()
    outbox.put(spb.ConsumeRequest(group=group, topics=[topic], credits=1))
    for response in stream.Consume(iter(outbox.get, None), timeout=TIMEOUT * 2):
        for sm in response.messages:
            out("streamed", offset=sm.offset, message=sm.message.decode())
            mref = spb.MessageRef(partition=sm.partition, offset=sm.offset)
            outbox.put(spb.ConsumeRequest(renewals=[mref]))
            outbox.put(spb.ConsumeRequest(rejects=[mref]))
            outbox.put(None)
    out("stream_ended")


if __name__ == "__main__":
    main(*sys.argv[1:])
