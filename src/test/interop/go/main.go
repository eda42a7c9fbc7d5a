// The gRPC interop scenario (see ../README.md) from grpc-go.
//
// Built in GOPATH mode from Debian's packages: the stubs are generated into $GOPATH/src/interop/pb.
// Usage: interop HOST:PORT TOPIC GROUP [CA_FILE]
// Prints one JSON object per step on stdout.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	pb "interop/pb"
)

const lang = "go"

func out(step string, fields map[string]interface{}) {
	fields["step"] = step
	b, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
}

func failure(err error) map[string]interface{} {
	s, _ := status.FromError(err)
	return map[string]interface{}{"code": codeName(s.Code()), "details": s.Message()}
}

// codeName spells a code as the other clients do: NOT_FOUND, not NotFound.
func codeName(c codes.Code) string {
	names := map[codes.Code]string{codes.OK: "OK", codes.NotFound: "NOT_FOUND",
		codes.InvalidArgument: "INVALID_ARGUMENT", codes.Unavailable: "UNAVAILABLE", codes.Internal: "INTERNAL",
		codes.Unknown: "UNKNOWN", codes.ResourceExhausted: "RESOURCE_EXHAUSTED",
		codes.Unauthenticated: "UNAUTHENTICATED", codes.Unimplemented: "UNIMPLEMENTED"}
	if n, ok := names[c]; ok {
		return n
	}
	return c.String()
}

func message(m *pb.ConsRs) map[string]interface{} {
	headers := [][]string{}
	for _, h := range m.Headers {
		headers = append(headers, []string{h.Key, string(h.Value)})
	}
	return map[string]interface{}{"partition": m.Partition, "offset": m.Offset, "key": string(m.KeyValue),
		"message": string(m.Message), "headers": headers}
}

func ctx() context.Context {
	c, _ := context.WithTimeout(context.Background(), 30*time.Second)
	return c
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// consume returns the next message; NOT_FOUND (long polling timeout) means nothing yet: ask again.
func consume(stub pb.KafkaPixyClient, rq *pb.ConsNAckRq) *pb.ConsRs {
	for i := 0; i < 30; i++ {
		m, err := stub.ConsumeNAck(ctx(), rq)
		if err == nil {
			return m
		}
		if status.Code(err) != codes.NotFound {
			must(err)
		}
	}
	must(fmt.Errorf("nothing consumed"))
	return nil
}

// waitForStart waits until the group has joined and committed where it starts: what is produced after that is
// delivered.
func waitForStart(stub pb.KafkaPixyClient, topic, group string) {
	for i := 0; i < 150; i++ {
		rs, err := stub.GetOffsets(ctx(), &pb.GetOffsetsRq{Topic: topic, Group: group})
		must(err)
		started := true
		for _, o := range rs.Offsets {
			started = started && o.Offset != -1
		}
		if started {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	must(fmt.Errorf("the group never committed its start"))
}

func main() {
	target, topic, group := os.Args[1], os.Args[2], os.Args[3]
	opt := grpc.WithInsecure()
	if len(os.Args) > 4 {
		creds, err := credentials.NewClientTLSFromFile(os.Args[4], "")
		must(err)
		opt = grpc.WithTransportCredentials(creds)
	}
	conn, err := grpc.Dial(target, opt)
	must(err)
	defer conn.Close()
	stub := pb.NewKafkaPixyClient(conn)

	rs, err := stub.Produce(ctx(), &pb.ProdRq{Topic: topic, KeyValue: []byte("key-" + lang),
		Message: []byte("sync-" + lang), Headers: []*pb.RecordHeader{{Key: "h1", Value: []byte("v1")}}})
	must(err)
	out("produce_sync", map[string]interface{}{"partition": rs.Partition, "offset": rs.Offset})
	rs, err = stub.Produce(ctx(), &pb.ProdRq{Topic: topic, KeyValue: []byte("key-" + lang),
		Message: []byte("async-" + lang), AsyncMode: true})
	must(err)
	out("produce_async", map[string]interface{}{"partition": rs.Partition, "offset": rs.Offset})

	if _, err := stub.ConsumeNAck(ctx(), &pb.ConsNAckRq{Topic: topic, Group: group, NoAck: true}); err != nil {
		out("first_consume", failure(err))
	} else {
		out("first_consume", map[string]interface{}{"code": "OK"})
	}

	waitForStart(stub, topic, group)
	for i := 1; i <= 3; i++ {
		rs, err := stub.Produce(ctx(), &pb.ProdRq{Topic: topic, Message: []byte(fmt.Sprintf("m%d-%s", i, lang)),
			Headers: []*pb.RecordHeader{{Key: "n", Value: []byte(fmt.Sprint(i))}}})
		must(err)
		out("produce_m", map[string]interface{}{"partition": rs.Partition, "offset": rs.Offset})
	}

	m := consume(stub, &pb.ConsNAckRq{Topic: topic, Group: group, NoAck: true})
	out("consumed", message(m))
	_, err = stub.Ack(ctx(), &pb.AckRq{Topic: topic, Group: group, Partition: m.Partition, Offset: m.Offset})
	must(err)
	out("acked", map[string]interface{}{"partition": m.Partition, "offset": m.Offset})

	rq := &pb.ConsNAckRq{Topic: topic, Group: group, NoAck: true}
	for i := 0; i < 2; i++ {
		m = consume(stub, rq)
		out("consumed", message(m))
		rq = &pb.ConsNAckRq{Topic: topic, Group: group, AckPartition: m.Partition, AckOffset: m.Offset}
	}
	_, err = stub.Ack(ctx(), &pb.AckRq{Topic: topic, Group: group, Partition: m.Partition, Offset: m.Offset})
	must(err)
	out("acked", map[string]interface{}{"partition": m.Partition, "offset": m.Offset})

	offsets, err := stub.GetOffsets(ctx(), &pb.GetOffsetsRq{Topic: topic, Group: group})
	must(err)
	partitions := []map[string]interface{}{}
	for _, o := range offsets.Offsets {
		partitions = append(partitions, map[string]interface{}{"partition": o.Partition, "begin": o.Begin,
			"end": o.End, "count": o.Count, "offset": o.Offset})
	}
	out("offsets", map[string]interface{}{"partitions": partitions})

	topics, err := stub.ListTopics(ctx(), &pb.ListTopicRq{})
	must(err)
	_, has := topics.Topics[topic]
	out("list_topics", map[string]interface{}{"has_topic": has})

	if _, err := stub.Produce(ctx(), &pb.ProdRq{Cluster: "no-such-cluster", Topic: topic,
		Message: []byte("x")}); err != nil {
		out("unknown_cluster", failure(err))
	} else {
		out("unknown_cluster", map[string]interface{}{"code": "OK"})
	}
}
