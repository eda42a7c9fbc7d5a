package io.kafkapixy;

public final class Main {
    public static void main(String[] args) {
        System.out.println(mailgun.kafkapixy.ProdRq.newBuilder().setTopic("x").build());
    }
}
