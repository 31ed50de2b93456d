// JSON lines over a stream, with a cap on one line: a peer that never sends a newline cannot make us
// hold more than `max` bytes.
export const MAX_LINE = 1024 * 1024;

export class LineSplitter {
  private pending: Buffer[] = [];
  private size = 0;

  constructor(private readonly max = MAX_LINE) {}

  /** The complete lines in `chunk` (without newline), or null once a line runs past the cap. */
  push(chunk: Buffer): string[] | null {
    const lines: string[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, nl);
      if (this.size + part.length > this.max) return null;
      this.pending.push(part);
      lines.push(Buffer.concat(this.pending).toString('utf8'));
      this.pending = [];
      this.size = 0;
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    if (this.size + rest.length > this.max) return null;
    if (rest.length) {
      this.pending.push(rest);
      this.size += rest.length;
    }
    return lines;
  }
}
