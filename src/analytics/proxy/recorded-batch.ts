/**
 * A batch of recorded requests as the recorder holds it and hands it to the recording thread
 * (recorder.ts, store-worker.ts): columns of numbers and each distinct string once, instead of an
 * object a request. A site's requests repeat their strings (method, paths, addresses, user agents,
 * Accept and content types), so a batch crosses to the thread as a few copies of typed arrays and a
 * short list of strings, where a list of objects was copied field by field on one side and rebuilt on
 * the other. Nothing is kept per request between writes either: objects held up to the flush time
 * outlived the young generation and were left to full garbage collections.
 */
import type { RequestFields } from '../capture/request-event.ts';

/** What the proxy records of one request: the fields a view needs, at epoch milliseconds. */
export type RecordedRequest = Pick<RequestFields, 'method' | 'path' | 'status' | 'ip' | 'userAgent' | 'referrer' | 'accept' | 'contentType' | 'headers'> & {
  at: number;
};

const textFields = ['method', 'path', 'ip', 'userAgent', 'referrer', 'accept', 'contentType'] as const;
const width = textFields.length;

/** A batch as it crosses to the recording thread (structured-cloneable). */
export interface BatchMessage {
  /** Request `index` has the key `keyPrefix` + (`firstCounter` + index) in base 36 on 10 digits. */
  keyPrefix: string;
  firstCounter: number;
  length: number;
  strings: string[];
  /** Each request's text fields in `textFields` order: 0 when absent, else 1 + the string's place in `strings`. */
  texts: Uint32Array;
  /** Each request's time and status (NaN when it has none). */
  numbers: Float64Array;
  /** The signature headers of the requests that carry them (signed requests only), by request index. */
  headers: [number, Record<string, string>][];
}

export class RecordedBatch {
  length = 0;
  readonly #strings: string[] = [];
  readonly #places = new Map<string, number>();
  readonly #texts: Uint32Array;
  readonly #numbers: Float64Array;
  readonly #headers: [number, Record<string, string>][] = [];

  readonly capacity: number;
  readonly keyPrefix: string;
  readonly firstCounter: number;

  /** `capacity` requests at most, keyed from `firstCounter` on. */
  constructor(capacity: number, keyPrefix: string, firstCounter: number) {
    this.capacity = capacity;
    this.keyPrefix = keyPrefix;
    this.firstCounter = firstCounter;
    this.#texts = new Uint32Array(capacity * width);
    this.#numbers = new Float64Array(capacity * 2);
  }

  get full(): boolean {
    return this.length >= this.capacity;
  }

  /** Adds a request; the batch must not be full. */
  add(request: RecordedRequest): void {
    const row = this.length++;
    const texts = this.#texts;
    const base = row * width;
    texts[base] = this.#place(request.method);
    texts[base + 1] = this.#place(request.path);
    texts[base + 2] = this.#place(request.ip);
    texts[base + 3] = this.#place(request.userAgent);
    texts[base + 4] = this.#place(request.referrer);
    texts[base + 5] = this.#place(request.accept);
    texts[base + 6] = this.#place(request.contentType);
    this.#numbers[row * 2] = request.at;
    this.#numbers[row * 2 + 1] = request.status ?? Number.NaN;
    if (request.headers !== undefined) this.#headers.push([row, request.headers]);
  }

  #place(value: string | undefined): number {
    if (value === undefined) return 0;
    let place = this.#places.get(value);
    if (place === undefined) {
      place = this.#strings.push(value);
      this.#places.set(value, place);
    }
    return place;
  }

  /** The batch as it is posted; its arrays are copied to its length, as a view would carry its whole buffer. */
  message(): BatchMessage {
    return {
      keyPrefix: this.keyPrefix,
      firstCounter: this.firstCounter,
      length: this.length,
      strings: this.#strings,
      texts: this.#texts.slice(0, this.length * width),
      numbers: this.#numbers.slice(0, this.length * 2),
      headers: this.#headers,
    };
  }
}

/** A request's key: this process's prefix and its counter, so a batch stored twice counts once. */
const requestKey = (prefix: string, counter: number): string => `${prefix}${counter.toString(36).padStart(10, '0')}`;

/** The requests of a posted batch, each with its key, in the order they were recorded. */
export function batchRequests(message: BatchMessage): { request: RecordedRequest; key: string }[] {
  const { strings, texts, numbers } = message;
  const text = (place: number) => (place === 0 ? undefined : strings[place - 1]);
  const signed = new Map(message.headers);
  const requests: { request: RecordedRequest; key: string }[] = [];
  for (let row = 0; row < message.length; row++) {
    const base = row * width;
    const status = numbers[row * 2 + 1]!;
    const request: RecordedRequest = {
      method: text(texts[base]!),
      path: text(texts[base + 1]!),
      at: numbers[row * 2]!,
      status: Number.isNaN(status) ? undefined : status,
      ip: text(texts[base + 2]!),
      userAgent: text(texts[base + 3]!),
      referrer: text(texts[base + 4]!),
      accept: text(texts[base + 5]!),
      contentType: text(texts[base + 6]!),
    };
    const headers = signed.get(row);
    if (headers !== undefined) request.headers = headers;
    requests.push({ request, key: requestKey(message.keyPrefix, message.firstCounter + row) });
  }
  return requests;
}
