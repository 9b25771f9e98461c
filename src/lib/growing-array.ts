type NumberArray = Uint16Array | Uint32Array | Float64Array;

/**
 * A typed array that doubles when full, for lists whose length is known only at the end. Numbers kept
 * this way stay out of the garbage-collected heap: a JS array of them, alive across yields to the event
 * loop, is promoted to the old generation and lets the heap grow until the next full collection.
 */
export class GrowingArray<T extends NumberArray> {
  array: T;
  length = 0;
  readonly #create: (size: number) => T;

  constructor(create: (size: number) => T, initialSize = 1 << 16) {
    this.#create = create;
    this.array = create(initialSize);
  }

  push(value: number): void {
    if (this.length === this.array.length) {
      const grown = this.#create(this.array.length * 2);
      grown.set(this.array);
      this.array = grown;
    }
    this.array[this.length++] = value;
  }

  /** A copy of the values pushed, exactly as long. */
  finish(): T {
    return this.array.slice(0, this.length) as T;
  }
}
