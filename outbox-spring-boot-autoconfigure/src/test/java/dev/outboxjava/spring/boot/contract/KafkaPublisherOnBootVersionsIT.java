package dev.outboxjava.spring.boot.contract;

import dev.outboxjava.kafka.KafkaPublisherContractIT;

/**
 * The Kafka publisher passes its contract unchanged on the Kafka clients Spring Boot manages (older than
 * the ones the project builds with), which is what it runs on in a Spring Boot service.
 */
class KafkaPublisherOnBootVersionsIT extends KafkaPublisherContractIT {}
