/** Splits a stream of bytes into lines, each with its byte offset: the offset is part of a line's event key. */

/**
 * The longest line read, in bytes before its newline (1 MiB). Lines of every format are far shorter: a combined
 * or CloudFront line is bounded by the web server's limits on a request's line and headers (8 KiB each by
 * nginx's and Apache's defaults), a Cloudflare Logpush record or a Quire event by its fields (an event takes at
 * most 2,048 characters for a path or user agent and 16 KiB of headers, ../ingest/validate.ts), and the longest,
 * a Vercel drain batch saved as one JSON array per line, by its entries (Vercel cuts each message at 4 KB).
 * A longer line is not a log line (a binary file, a log without newlines): it is skipped, as holding it whole
 * would let one line take any amount of memory.
 */
export const maxLineBytes = 1024 * 1024;

/**
 * Bytes of an over-long line kept as its text (64 KiB): as many as a tail reads of a file's first line for the
 * file's identity (tail.ts), so a file whose first line is over-long has one fingerprint imported and tailed.
 */
export const lineHeadBytes = 64 * 1024;

export interface Line {
  text: string;
  /** Byte offset of the line's first character. */
  offset: number;
  /** Byte offset just after its newline (where the next line starts). */
  end: number;
  /** Set when the line is longer than maxLineBytes: it is not read, and `text` is its first lineHeadBytes bytes. */
  overLong?: true;
}

/**
 * Lines of the bytes pushed, starting at byte `start`. A last line without a newline is held back (a
 * growing file whose writer has not finished the line) until `finish()` makes it a line (a file read
 * to its end); `pending()` says how many bytes are held.
 *
 * An unfinished line is held as a list of copies of its parts (the caller may reuse its buffer, as
 * tail.ts does) and joined once, when its newline arrives: joining at every part cost time quadratic in
 * the line's length. Past maxLineBytes its bytes are dropped and only counted, so offsets stay exact.
 */
export class LineSplitter {
  /** Parts of the unfinished line, while it is no longer than maxLineBytes. */
  #parts: Buffer[] = [];
  /** Bytes of the unfinished line read so far, dropped ones included. */
  #held = 0;
  /** The first lineHeadBytes of an unfinished line found over-long (its parts dropped). */
  #head: Buffer | undefined;
  #offset: number;

  constructor(start = 0) {
    this.#offset = start;
  }

  /** Appends bytes and returns the complete lines they finish. */
  push(chunk: Buffer): Line[] {
    const lines: Line[] = [];
    let start = 0;
    let newline = chunk.indexOf(10);
    if (this.#held > 0) {
      if (newline === -1) {
        this.#hold(chunk);
        return lines;
      }
      lines.push(this.#finishHeld(chunk.subarray(0, newline + 1)));
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    for (; newline !== -1; newline = chunk.indexOf(10, start)) {
      lines.push(this.#line(chunk, start, newline));
      start = newline + 1;
    }
    if (start < chunk.length) this.#hold(chunk.subarray(start));
    return lines;
  }

  /** The unfinished last line as a line (at the end of a file that is read once). */
  finish(): Line[] {
    if (this.#held === 0) return [];
    const length = this.#held;
    // #hold keeps the head of a line once it is longer than maxLineBytes.
    if (this.#head !== undefined) return [this.#overLong(this.#head, length)];
    const text = this.#joined([]).toString('utf8');
    return [this.#advance({ text: text.endsWith('\r') ? text.slice(0, -1) : text, offset: this.#offset, end: this.#offset + length })];
  }

  /** Bytes of an unfinished line held back (dropped ones of an over-long line included). */
  pending(): number {
    return this.#held;
  }

  /** Holds part of an unfinished line: a copy while the line is short enough to be read, else only its length. */
  #hold(part: Buffer): void {
    this.#held += part.length;
    if (this.#head !== undefined) return;
    if (this.#held <= maxLineBytes) {
      this.#parts.push(Buffer.from(part));
      return;
    }
    this.#head = this.#joined([part], lineHeadBytes);
    this.#parts = [];
  }

  /** The held line finished by `last`, which ends with its newline. */
  #finishHeld(last: Buffer): Line {
    const end = this.#held + last.length;
    if (this.#head !== undefined || end - 1 > maxLineBytes) return this.#overLong(this.#head ?? this.#joined([last], lineHeadBytes), end);
    const whole = this.#joined([last]);
    return this.#line(whole, 0, whole.length - 1);
  }

  /** The held parts and `more` as one buffer, cut to `limit` bytes. */
  #joined(more: Buffer[], limit = Infinity): Buffer {
    const parts = [...this.#parts, ...more];
    const length = parts.reduce((sum, part) => sum + part.length, 0);
    return Buffer.concat(parts, Math.min(limit, length));
  }

  /** The line of `buffer` from `start` to its newline at `newline`, at the current offset. */
  #line(buffer: Buffer, start: number, newline: number): Line {
    const end = newline + 1 - start;
    if (newline - start > maxLineBytes) return this.#overLong(buffer.subarray(start, start + lineHeadBytes), end);
    const contentEnd = newline > start && buffer[newline - 1] === 13 ? newline - 1 : newline;
    return this.#advance({ text: buffer.toString('utf8', start, contentEnd), offset: this.#offset, end: this.#offset + end });
  }

  /** An over-long line of `length` bytes (its newline included, if it has one), known by its first lineHeadBytes. */
  #overLong(head: Buffer, length: number): Line {
    return this.#advance({ text: head.toString('utf8'), offset: this.#offset, end: this.#offset + length, overLong: true });
  }

  /** Moves past `line` and forgets the held one (nothing to forget for most lines, which no chunk cut). */
  #advance(line: Line): Line {
    this.#offset = line.end;
    if (this.#held !== 0) {
      this.#parts = [];
      this.#held = 0;
      this.#head = undefined;
    }
    return line;
  }
}
