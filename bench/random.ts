/** Deterministic randomness for the bench datasets: the same sequences on every machine. */

/** mulberry32: small, fast, and the same sequence on every machine. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Zipf-like ranks below `size` (weights 1/(rank+1), searched by bisection), one `next()` per draw. */
export function zipf(size: number, next: () => number): () => number {
  const cumulative = new Float64Array(size);
  let sum = 0;
  for (let rank = 0; rank < size; rank++) cumulative[rank] = sum += 1 / (rank + 1);
  return () => {
    const target = next() * sum;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}
