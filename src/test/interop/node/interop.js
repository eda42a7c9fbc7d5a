// The gRPC interop scenario (see ../README.md) from Node's @grpc/grpc-js, loading the proto at run time.
//
// Usage: node interop.js PROTO_FILE HOST:PORT TOPIC GROUP
// Prints one JSON object per step on stdout.
'use strict';
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const LANG = 'node';
const [protoFile, target, topic, group] = process.argv.slice(2);
const definition = protoLoader.loadSync(protoFile, {keepCase: true, longs: Number, defaults: true});
const KafkaPixy = grpc.loadPackageDefinition(definition).KafkaPixy;
const stub = new KafkaPixy(target, grpc.credentials.createInsecure());
const codeNames = Object.fromEntries(Object.entries(grpc.status).map(([name, code]) => [code, name]));

function out(step, fields) {
  console.log(JSON.stringify({step, ...fields}));
}

function call(method, rq) {
  return new Promise((resolve, reject) => {
    stub[method](rq, {deadline: Date.now() + 30000}, (err, rs) => (err ? reject(err) : resolve(rs)));
  });
}

function failure(err) {
  return {code: codeNames[err.code], details: err.details};
}

function message(m) {
  return {partition: m.partition, offset: m.offset, key: m.key_value.toString(), message: m.message.toString(),
    headers: m.headers.map((h) => [h.key, h.value.toString()])};
}

// The next message; NOT_FOUND (long polling timeout) means nothing yet: ask again.
async function consume(rq) {
  for (let i = 0; i < 30; i++) {
    try {
      return await call('ConsumeNAck', rq);
    } catch (err) {
      if (err.code !== grpc.status.NOT_FOUND) throw err;
    }
  }
  throw new Error('nothing consumed');
}

// Until the group has joined and committed where it starts: what is produced after that is delivered.
async function waitForStart() {
  for (let i = 0; i < 150; i++) {
    const rs = await call('GetOffsets', {topic, group});
    if (rs.offsets.every((o) => o.offset !== -1)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the group never committed its start');
}

async function main() {
  let rs = await call('Produce', {topic, key_value: Buffer.from('key-' + LANG), message: Buffer.from('sync-' + LANG),
    headers: [{key: 'h1', value: Buffer.from('v1')}]});
  out('produce_sync', {partition: rs.partition, offset: rs.offset});
  rs = await call('Produce', {topic, key_value: Buffer.from('key-' + LANG), message: Buffer.from('async-' + LANG),
    async_mode: true});
  out('produce_async', {partition: rs.partition, offset: rs.offset});

  try {
    await call('ConsumeNAck', {topic, group, no_ack: true});
    out('first_consume', {code: 'OK'});
  } catch (err) {
    out('first_consume', failure(err));
  }

  await waitForStart();
  for (const i of [1, 2, 3]) {
    rs = await call('Produce', {topic, message: Buffer.from(`m${i}-${LANG}`),
      headers: [{key: 'n', value: Buffer.from(String(i))}]});
    out('produce_m', {partition: rs.partition, offset: rs.offset});
  }

  let m = await consume({topic, group, no_ack: true});
  out('consumed', message(m));
  await call('Ack', {topic, group, partition: m.partition, offset: m.offset});
  out('acked', {partition: m.partition, offset: m.offset});

  let rq = {topic, group, no_ack: true};
  for (let i = 0; i < 2; i++) {
    m = await consume(rq);
    out('consumed', message(m));
    rq = {topic, group, ack_partition: m.partition, ack_offset: m.offset};
  }
  await call('Ack', {topic, group, partition: m.partition, offset: m.offset});
  out('acked', {partition: m.partition, offset: m.offset});

  const offsets = await call('GetOffsets', {topic, group});
  out('offsets', {partitions: offsets.offsets.map((o) => ({partition: o.partition, begin: o.begin, end: o.end,
    count: o.count, offset: o.offset}))});

  const topics = await call('ListTopics', {});
  out('list_topics', {has_topic: Object.prototype.hasOwnProperty.call(topics.topics, topic)});

  try {
    await call('Produce', {cluster: 'no-such-cluster', topic, message: Buffer.from('x')});
    out('unknown_cluster', {code: 'OK'});
  } catch (err) {
    out('unknown_cluster', failure(err));
  }
  stub.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
