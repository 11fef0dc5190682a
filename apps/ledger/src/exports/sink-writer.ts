/** The response an export streams into (an Express response fits). */
export interface ExportSink {
  setHeader(name: string, value: string): unknown;
  write(chunk: string): boolean;
  end(): unknown;
  destroy(err?: Error): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  removeListener(event: 'drain', listener: () => void): unknown;
  readonly destroyed: boolean;
  /** True once the response's connection closed (after its end or before). */
  readonly closed?: boolean;
  readonly headersSent: boolean;
}

/**
 * The writes of one export into its sink, watched from before the export's first query: the close
 * of the sink's connection (the client went away, or the API cut a stalled reader: the heavy reads'
 * idle timeout) is seen whenever it comes — while a batch is read, or while a write waits for the
 * socket to drain — so the export stops at its next write and gives its snapshot back
 * (docs/reports.md §5). Never more than one `drain` listener at a time.
 */
export class SinkWriter {
  private gone: boolean;
  private wake: (() => void) | null = null;

  constructor(private readonly sink: ExportSink) {
    this.gone = sink.destroyed || sink.closed === true;
    if (!this.gone)
      sink.once('close', () => {
        this.gone = true;
        this.wake?.();
      });
  }

  /** True once the sink's connection closed: nothing more is written. */
  get closed(): boolean {
    return this.gone;
  }

  /** Writes `chunk`, then waits until the sink drained or closed. Does nothing once closed. */
  async write(chunk: string): Promise<void> {
    if (this.gone || this.sink.write(chunk) || this.gone) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.sink.removeListener('drain', done);
        this.wake = null;
        resolve();
      };
      this.wake = done;
      this.sink.once('drain', done);
    });
  }
}
