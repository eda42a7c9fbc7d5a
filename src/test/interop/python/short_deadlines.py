"""Auto-ack consumes with short deadlines lose nothing (see ../README.md).

Usage: short_deadlines.py HOST:PORT TOPIC GROUP DEADLINE_MS COUNT INTERVAL_MS   (stubs in the working directory)

Joins GROUP first, then one thread loops ConsumeNAck(auto_ack) with a DEADLINE_MS deadline while the main thread
produces COUNT messages INTERVAL_MS apart; consuming goes on until nothing has come for a while. Prints one JSON line:
the produced values, the received ones (in order, duplicates kept) and how the calls ended.
"""
import collections
import json
import sys
import threading
import time

import grpc

import kafkapixy_pb2 as pb
import kafkapixy_pb2_grpc as pbg
from interop import TIMEOUT, wait_for_start

QUIET_SECONDS = 8


def joined(stub, topic, group):
    """Until the group has joined and committed where it starts: what is produced after that is delivered."""
    try:
        stub.ConsumeNAck(pb.ConsNAckRq(topic=topic, group=group, auto_ack=True), timeout=TIMEOUT)
        raise RuntimeError("the topic should be empty")
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.NOT_FOUND:
            raise
    wait_for_start(stub, topic, group)


def main(target, topic, group, deadline_ms, count, interval_ms):
    deadline = int(deadline_ms) / 1000.0
    count = int(count)
    interval = int(interval_ms) / 1000.0
    channel = grpc.insecure_channel(target)
    stub = pbg.KafkaPixyStub(channel)
    joined(stub, topic, group)

    received = []
    endings = collections.Counter()
    last = [time.monotonic()]
    producing = [True]

    def consume():
        rq = pb.ConsNAckRq(topic=topic, group=group, auto_ack=True)
        while producing[0] or time.monotonic() - last[0] < QUIET_SECONDS:
            try:
                m = stub.ConsumeNAck(rq, timeout=deadline)
                received.append(m.message.decode())
                last[0] = time.monotonic()
                endings["OK"] += 1
            except grpc.RpcError as e:
                endings[e.code().name] += 1

    consumer = threading.Thread(target=consume)
    consumer.start()
    produced = []
    for i in range(count):
        value = "m%d" % i
        stub.Produce(pb.ProdRq(topic=topic, message=value.encode()), timeout=TIMEOUT)
        produced.append(value)
        time.sleep(interval)
    last[0] = time.monotonic()
    producing[0] = False
    consumer.join()
    print(json.dumps(dict(produced=produced, received=received, endings=endings)), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
