import { EventEmitter } from 'node:events';
import { SinkWriter, type ExportSink } from './sink-writer';

/** A sink whose socket accepts nothing: every write asks to wait for `drain`. */
class FullSink extends EventEmitter implements ExportSink {
  destroyed = false;
  closed = false;
  headersSent = false;
  written: string[] = [];
  setHeader(): void {}
  write(chunk: string): boolean {
    this.written.push(chunk);
    return false;
  }
  end(): void {}
  destroy(): void {
    this.destroyed = true;
    this.closed = true;
    this.emit('close');
  }
}

describe('SinkWriter: an export sees the close of its connection whenever it comes', () => {
  it('a close while a write waits for drain ends the wait; nothing more is written', async () => {
    const sink = new FullSink();
    const out = new SinkWriter(sink);
    const waiting = out.write('a');
    sink.destroy();
    await waiting;
    await out.write('b');
    expect([out.closed, sink.written, sink.listenerCount('drain')]).toEqual([true, ['a'], 0]);
  });

  it('a close between two writes (while a batch is read): the next write returns at once, without waiting for a drain that never comes', async () => {
    const sink = new FullSink();
    const out = new SinkWriter(sink);
    const first = out.write('a');
    sink.emit('drain');
    await first;
    sink.destroy();
    await out.write('b');
    expect([out.closed, sink.written, sink.listenerCount('drain')]).toEqual([true, ['a'], 0]);
  });

  it('a sink closed before the export started is closed at once; a drained write leaves no listener behind', async () => {
    const gone = new FullSink();
    gone.closed = true;
    expect(new SinkWriter(gone).closed).toBe(true);
    const sink = new FullSink();
    const out = new SinkWriter(sink);
    for (let i = 0; i < 20; i++) {
      const w = out.write(String(i));
      sink.emit('drain');
      await w;
    }
    expect([out.closed, sink.written.length, sink.listenerCount('drain'), sink.listenerCount('close')]).toEqual([false, 20, 0, 1]);
  });
});
