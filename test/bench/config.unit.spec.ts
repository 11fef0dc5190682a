/**
 * The bench's addresses (bench/lib/config.ts) and the Kafka ceilings' command lines
 * (bench/lib/kafka-tools.ts): every broker a Java tool is given comes from KAFKA_BROKERS, never from
 * a literal; the broker process whose memory is read is the one listening on a configured port.
 */
import { benchConfig, bootstrapServers, brokerPorts, brokersOf } from '../../bench/lib/config';
import { consumerPerfArgs, headerProducerArgs, listenersOf, pickBroker, producerPerfArgs, producerProps } from '../../bench/lib/kafka-tools';

const after = (args: string[], flag: string): string | undefined => args[args.indexOf(flag) + 1];

describe('bench configuration', () => {
  it('reads the brokers, the database and the port from the environment', () => {
    const c = benchConfig({ KAFKA_BROKERS: '127.0.0.1:19092, 10.0.0.2:9094', BENCH_DATABASE_URL: 'postgres://u:p@db.local:6543/other_bench', BENCH_PORT: '4901' });
    expect(c).toEqual({ brokers: ['127.0.0.1:19092', '10.0.0.2:9094'], databaseUrl: 'postgres://u:p@db.local:6543/other_bench', databaseName: 'other_bench', port: 4901 });
  });

  it('falls back to the stack defaults only when a variable is unset or empty', () => {
    expect(benchConfig({})).toEqual({ brokers: ['127.0.0.1:9092'], databaseUrl: 'postgres://ledger:ledger@127.0.0.1:5432/ledger_bench', databaseName: 'ledger_bench', port: 3901 });
    expect(brokersOf({ KAFKA_BROKERS: ' , ' })).toEqual(['127.0.0.1:9092']);
  });

  it('refuses a port that is not one', () => {
    expect(() => benchConfig({ BENCH_PORT: 'eighty' })).toThrow(/BENCH_PORT/);
    expect(() => benchConfig({ BENCH_PORT: '70000' })).toThrow(/BENCH_PORT/);
  });

  it('joins the brokers for bootstrap.servers and reads their ports', () => {
    expect(bootstrapServers(['a:1', 'b:2'])).toBe('a:1,b:2');
    expect(() => bootstrapServers([])).toThrow(/no Kafka brokers/);
    expect(brokerPorts(['127.0.0.1:19092', 'kafka:9094', 'noport'])).toEqual([19092, 9094]);
  });
});

describe('Kafka ceilings use the configured brokers', () => {
  const brokers = ['127.0.0.1:19092', '127.0.0.1:19094'];

  it('ProducerPerformance: bootstrap.servers from the configuration, acks=all', () => {
    const args = producerPerfArgs({ brokers, classpath: '/libs/*', topic: 't', records: 10, recordBytes: 300, throughput: -1 });
    expect(args.slice(args.indexOf('--producer-props') + 1)).toEqual(['bootstrap.servers=127.0.0.1:19092,127.0.0.1:19094', 'acks=all']);
    expect(after(args, '-cp')).toBe('/libs/*');
    expect(after(args, '--record-size')).toBe('300');
    expect(producerProps(['h:1'])).toEqual(['bootstrap.servers=h:1', 'acks=all']);
  });

  it('ConsumerPerformance: --bootstrap-server from the configuration', () => {
    const args = consumerPerfArgs({ brokers, classpath: '/libs/*', topic: 'bench.r.rebuild', records: 5, group: 'g' });
    expect(after(args, '--bootstrap-server')).toBe('127.0.0.1:19092,127.0.0.1:19094');
    expect(after(args, '--topic')).toBe('bench.r.rebuild');
    expect(after(args, '--group')).toBe('g');
  });

  it('the Java producer: its bootstrap argument from the configuration', () => {
    const args = headerProducerArgs({ brokers: ['127.0.0.1:19092'], classpath: '/tmp/java:/libs/*', topic: 't', records: 7, throughput: 1000, samplesFile: '/tmp/s.tsv' });
    expect(args.slice(args.indexOf('HeaderProducerPerf') + 1)).toEqual(['127.0.0.1:19092', 't', '7', '1000', '/tmp/s.tsv']);
  });

  it('no tool is ever given 127.0.0.1:9092 unless configured so', () => {
    const all = [
      ...producerPerfArgs({ brokers, classpath: 'c', topic: 't', records: 1, recordBytes: 1, throughput: 1 }),
      ...consumerPerfArgs({ brokers, classpath: 'c', topic: 't', records: 1, group: 'g' }),
      ...headerProducerArgs({ brokers, classpath: 'c', topic: 't', records: 1, throughput: 1, samplesFile: 'f' }),
    ];
    expect(all.join(' ')).not.toMatch(/:9092\b/);
  });

  it('the broker process is the one listening on a configured port', () => {
    const shared = { pid: 10, libs: '/main/libs', listeners: 'PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093' };
    const own = { pid: 20, libs: '/wt/libs', listeners: 'PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093' };
    expect(pickBroker([shared, own], ['127.0.0.1:19092'])?.pid).toBe(20);
    expect(pickBroker([shared, own], ['127.0.0.1:9092'])?.pid).toBe(10);
    expect(pickBroker([shared, own], ['127.0.0.1:909'])).toBeNull();
    expect(pickBroker([{ pid: 30, libs: null, listeners: null }], ['kafka:9092'])?.pid).toBe(30);
    expect(listenersOf('# x\nprocess.roles=broker\nlisteners=PLAINTEXT://127.0.0.1:19092\n')).toBe('PLAINTEXT://127.0.0.1:19092');
    expect(listenersOf('advertised.listeners=PLAINTEXT://h:1\n')).toBeNull();
  });
});
