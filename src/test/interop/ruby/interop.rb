# The gRPC interop scenario (see ../README.md) from Ruby's grpc gem, built on gRPC C-core.
#
# Usage: ruby -I STUBS_DIR interop.rb HOST:PORT TOPIC GROUP
# Prints one JSON object per step on stdout.
require 'json'
require 'grpc'
require 'kafkapixy_services_pb'

TIMEOUT = 30
LANG = 'ruby'

def out(step, fields = {})
  puts JSON.generate({ step: step }.merge(fields))
  $stdout.flush
end

def failure(e)
  { code: GRPC::Core::StatusCodes.constants.find { |c| GRPC::Core::StatusCodes.const_get(c) == e.code }.to_s,
    details: e.details }
end

def message(m)
  { partition: m.partition, offset: m.offset, key: m.key_value, message: m.message,
    headers: m.headers.map { |h| [h.key, h.value] } }
end

def deadline
  Time.now + TIMEOUT
end

# The next message; NOT_FOUND (long polling timeout) means nothing yet: ask again.
def consume(stub, rq)
  30.times do
    begin
      return stub.consume_n_ack(rq, deadline: deadline)
    rescue GRPC::NotFound
      next
    end
  end
  raise 'nothing consumed'
end

# Until the group has joined and committed where it starts: what is produced after that is delivered.
def wait_for_start(stub, topic, group)
  150.times do
    rs = stub.get_offsets(GetOffsetsRq.new(topic: topic, group: group), deadline: deadline)
    return if rs.offsets.all? { |o| o.offset != -1 }
    sleep 0.2
  end
  raise 'the group never committed its start'
end

target, topic, group = ARGV
stub = KafkaPixy::Stub.new(target, :this_channel_is_insecure)

rs = stub.produce(ProdRq.new(topic: topic, key_value: "key-#{LANG}", message: "sync-#{LANG}",
                             headers: [RecordHeader.new(key: 'h1', value: 'v1')]), deadline: deadline)
out('produce_sync', partition: rs.partition, offset: rs.offset)
rs = stub.produce(ProdRq.new(topic: topic, key_value: "key-#{LANG}", message: "async-#{LANG}", async_mode: true),
                  deadline: deadline)
out('produce_async', partition: rs.partition, offset: rs.offset)

begin
  stub.consume_n_ack(ConsNAckRq.new(topic: topic, group: group, no_ack: true), deadline: deadline)
  out('first_consume', code: 'OK')
rescue GRPC::BadStatus => e
  out('first_consume', failure(e))
end

wait_for_start(stub, topic, group)
[1, 2, 3].each do |i|
  rs = stub.produce(ProdRq.new(topic: topic, message: "m#{i}-#{LANG}", headers: [RecordHeader.new(key: 'n', value: i.to_s)]),
                    deadline: deadline)
  out('produce_m', partition: rs.partition, offset: rs.offset)
end

m = consume(stub, ConsNAckRq.new(topic: topic, group: group, no_ack: true))
out('consumed', message(m))
stub.ack(AckRq.new(topic: topic, group: group, partition: m.partition, offset: m.offset), deadline: deadline)
out('acked', partition: m.partition, offset: m.offset)

rq = ConsNAckRq.new(topic: topic, group: group, no_ack: true)
2.times do
  m = consume(stub, rq)
  out('consumed', message(m))
  rq = ConsNAckRq.new(topic: topic, group: group, ack_partition: m.partition, ack_offset: m.offset)
end
stub.ack(AckRq.new(topic: topic, group: group, partition: m.partition, offset: m.offset), deadline: deadline)
out('acked', partition: m.partition, offset: m.offset)

rs = stub.get_offsets(GetOffsetsRq.new(topic: topic, group: group), deadline: deadline)
out('offsets', partitions: rs.offsets.map { |o| { partition: o.partition, begin: o.begin, end: o.end, count: o.count,
                                                   offset: o.offset } })

rs = stub.list_topics(ListTopicRq.new, deadline: deadline)
out('list_topics', has_topic: rs.topics.has_key?(topic))

begin
  stub.produce(ProdRq.new(cluster: 'no-such-cluster', topic: topic, message: 'x'), deadline: deadline)
  out('unknown_cluster', code: 'OK')
rescue GRPC::BadStatus => e
  out('unknown_cluster', failure(e))
end
