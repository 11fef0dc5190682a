/*
 * The bench's Kafka producer ceiling WITH record headers (bench/phases/ceilings.ts compiles it with
 * javac against the kafka-clients jar of the running stack and runs it): Kafka's own
 * ProducerPerformance (4.1) has no option for headers, and the relay's records carry CloudEvents
 * headers, so this sends the relay's own records — keys, values and headers sampled from the
 * bench's ingest topic — cycling through them, as fast as it goes or at a fixed rate.
 *
 *   java -cp 'kafka-clients.jar:…' HeaderProducerPerf <bootstrap> <topic> <records> <throughput|-1> <samples-file>
 *
 * samples-file: one record a line, `base64(key) TAB base64(value) TAB name=base64(value),name=…`.
 * Producer: acks=all, enable.idempotence=true (as the relay's), the client's defaults otherwise.
 * Prints one line: RESULT records=N seconds=S rps=R p50=A p99=B max=C avg=D valueBytes=V headerBytes=H headers=K
 */
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class HeaderProducerPerf {
  private static final class Sample {
    byte[] key;
    byte[] value;
    List<RecordHeader> headers = new ArrayList<>();
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int records = Integer.parseInt(args[2]);
    int throughput = Integer.parseInt(args[3]);
    Base64.Decoder b64 = Base64.getDecoder();
    List<Sample> samples = new ArrayList<>();
    long valueBytes = 0;
    long headerBytes = 0;
    long headerCount = 0;
    for (String line : Files.readAllLines(Paths.get(args[4]), StandardCharsets.UTF_8)) {
      if (line.isEmpty()) continue;
      String[] f = line.split("\t", -1);
      Sample s = new Sample();
      s.key = f[0].isEmpty() ? null : b64.decode(f[0]);
      s.value = b64.decode(f[1]);
      valueBytes += s.value.length;
      if (f.length > 2 && !f[2].isEmpty()) {
        for (String h : f[2].split(",")) {
          int eq = h.indexOf('=');
          byte[] v = b64.decode(h.substring(eq + 1));
          s.headers.add(new RecordHeader(h.substring(0, eq), v));
          headerBytes += v.length + eq;
          headerCount++;
        }
      }
      samples.add(s);
    }
    if (samples.isEmpty()) throw new IllegalArgumentException("no sample records in " + args[4]);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    final long[] latencyUs = new long[records];
    final int[] done = {0};
    long start = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < records; i++) {
        if (throughput > 0) {
          long due = start + (long) (i * 1e9 / throughput);
          long wait = due - System.nanoTime();
          if (wait > 0) Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        Sample s = samples.get(i % samples.size());
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, s.key, s.value, new ArrayList<>(s.headers));
        final int k = i;
        final long sent = System.nanoTime();
        producer.send(r, (md, e) -> {
          if (e != null) {
            e.printStackTrace();
            System.exit(2);
          }
          latencyUs[k] = (System.nanoTime() - sent) / 1000;
          synchronized (done) {
            done[0]++;
          }
        });
      }
      producer.flush();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long[] sorted = latencyUs.clone();
    Arrays.sort(sorted);
    double sum = 0;
    for (long x : sorted) sum += x;
    System.out.printf(
        "RESULT records=%d seconds=%.3f rps=%.1f p50=%.2f p99=%.2f max=%.2f avg=%.2f valueBytes=%d headerBytes=%d headers=%.2f%n",
        records, seconds, records / seconds,
        sorted[(int) Math.min(records - 1, Math.ceil(0.50 * records) - 1)] / 1000.0,
        sorted[(int) Math.min(records - 1, Math.ceil(0.99 * records) - 1)] / 1000.0,
        sorted[records - 1] / 1000.0, sum / records / 1000.0,
        valueBytes / samples.size(), headerBytes / samples.size(), (double) headerCount / samples.size());
  }
}
