/** Splits a stream of bytes into lines, each with its byte offset: the offset is part of a line's event key. */

export interface Line {
  text: string;
  /** Byte offset of the line's first character. */
  offset: number;
  /** Byte offset just after its newline (where the next line starts). */
  end: number;
}

/**
 * Lines of `chunks`, starting at byte `start`. A last line without a newline is a line when
 * `finalLine` is set (a file read to its end) and held back otherwise (a growing file whose writer
 * has not finished the line); `pending()` says how many bytes are held.
 */
export class LineSplitter {
  #rest: Buffer = Buffer.alloc(0);
  #offset: number;

  constructor(start = 0) {
    this.#offset = start;
  }

  /** Appends bytes and returns the complete lines they finish. */
  push(chunk: Buffer): Line[] {
    const lines: Line[] = [];
    let start = 0;
    let newline = chunk.indexOf(10);
    if (this.#rest.length > 0) {
      // Only the held part and the rest of its line are joined: copying the whole chunk after it cost a copy of every byte read.
      if (newline === -1) {
        this.#rest = Buffer.concat([this.#rest, chunk]);
        return lines;
      }
      const first = Buffer.concat([this.#rest, chunk.subarray(0, newline + 1)]);
      lines.push(this.#line(first, 0, first.length - 1));
      this.#offset += first.length;
      this.#rest = Buffer.alloc(0);
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    for (; newline !== -1; newline = chunk.indexOf(10, start)) {
      lines.push(this.#line(chunk, start, newline));
      this.#offset += newline + 1 - start;
      start = newline + 1;
    }
    if (start < chunk.length) this.#rest = chunk.subarray(start);
    return lines;
  }

  /** The line of `buffer` from `start` to its newline at `newline`, at the current offset. */
  #line(buffer: Buffer, start: number, newline: number): Line {
    const contentEnd = newline > start && buffer[newline - 1] === 13 ? newline - 1 : newline;
    return { text: buffer.toString('utf8', start, contentEnd), offset: this.#offset, end: this.#offset + newline + 1 - start };
  }

  /** The unfinished last line as a line (at the end of a file that is read once). */
  finish(): Line[] {
    if (this.#rest.length === 0) return [];
    const line = { text: this.#rest.toString('utf8').replace(/\r$/, ''), offset: this.#offset, end: this.#offset + this.#rest.length };
    this.#offset += this.#rest.length;
    this.#rest = Buffer.alloc(0);
    return [line];
  }

  /** Bytes of an unfinished line held back. */
  pending(): number {
    return this.#rest.length;
  }
}
