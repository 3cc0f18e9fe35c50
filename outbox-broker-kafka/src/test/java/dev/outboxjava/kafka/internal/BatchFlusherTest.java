package dev.outboxjava.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class BatchFlusherTest {

    /** A MockProducer that completes nothing on its own; its flush() completes every record handed over. */
    private static final class CountingProducer extends MockProducer<String, byte[]> {
        final AtomicInteger flushes = new AtomicInteger();

        CountingProducer() {
            super(false, null, new StringSerializer(), new ByteArraySerializer());
        }

        @Override
        public synchronized void flush() {
            flushes.incrementAndGet();
            super.flush();
        }
    }

    @Test
    @DisplayName("a request flushes the producer on the flusher's thread, so what was handed over is sent")
    void requestFlushes() {
        CountingProducer producer = new CountingProducer();
        try (BatchFlusher flusher = new BatchFlusher("test-flusher")) {
            Future<RecordMetadata> sent = producer.send(new ProducerRecord<>("orders", "k", new byte[] {1}));
            assertThat(sent).isNotDone();

            flusher.request(producer);

            await().until(sent::isDone);
            assertThat(producer.flushes).hasValue(1);
        }
    }

    @Test
    @DisplayName("close ends the flushing thread, and later requests flush nothing")
    void closed() {
        CountingProducer producer = new CountingProducer();
        BatchFlusher flusher = new BatchFlusher("test-flusher");
        flusher.close();
        await().until(() -> !flusher.isRunning());
        Future<RecordMetadata> sent = producer.send(new ProducerRecord<>("orders", "k", new byte[] {1}));

        flusher.request(producer);

        assertThat(sent).isNotDone();
        assertThat(producer.flushes).hasValue(0);
    }
}
