/** Unsigned LEB128 varints: the byte form of day sets and pending batches. */

export class ByteWriter {
  #bytes = new Uint8Array(1024);
  #length = 0;

  write(value: number): void {
    if (this.#length + 5 > this.#bytes.length) {
      const grown = new Uint8Array(this.#bytes.length * 2);
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    let rest = value >>> 0;
    while (rest >= 0x80) {
      this.#bytes[this.#length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.#bytes[this.#length++] = rest;
  }

  finish(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }
}

export class ByteReader {
  readonly #bytes: Uint8Array;
  offset = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  get done(): boolean {
    return this.offset >= this.#bytes.length;
  }

  read(): number {
    let result = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = this.#bytes[this.offset++];
      result |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return result >>> 0;
  }
}

/**
 * Count-prefixed records of four varints each: the form of a pending batch's counted views and of its
 * breakdown entries. Built one record at a time, so ingestion creates no object per view.
 */
export class RecordWriter {
  readonly #body = new ByteWriter();
  count = 0;

  add(first: number, second: number, third: number, fourth: number): void {
    this.#body.write(first);
    this.#body.write(second);
    this.#body.write(third);
    this.#body.write(fourth);
    this.count++;
  }

  finish(): Uint8Array {
    const header = new ByteWriter();
    header.write(this.count);
    const head = header.finish();
    const body = this.#body.finish();
    const bytes = new Uint8Array(head.length + body.length);
    bytes.set(head);
    bytes.set(body, head.length);
    return bytes;
  }
}

/** Calls `visit` with each record written by a RecordWriter, without building objects. */
export function readRecords(bytes: Uint8Array, visit: (first: number, second: number, third: number, fourth: number) => void): void {
  const reader = new ByteReader(bytes);
  const count = reader.read();
  for (let index = 0; index < count; index++) visit(reader.read(), reader.read(), reader.read(), reader.read());
}
