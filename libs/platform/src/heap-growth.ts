import { setFlagsFromString } from 'node:v8';

/**
 * How far past what the last full collection found alive V8 lets the heap
 * grow before the next one, in per cent (decision 0037, "Memory at scale").
 */
export const HEAP_GROWING_PERCENT = 20;

/**
 * Keeps the service's heap within HEAP_GROWING_PERCENT of its live data.
 *
 * V8 chooses that margin itself, from 10 % up to 300 % when the heap may
 * grow to 2 GB or more (Node's default on a machine of 16 GB), by how fast
 * the program fills the old generation against how fast it collects. A catch-up over a large ledger fills it fast: each
 * batch of events stays alive across its Redis round trips, so it is
 * promoted and dies there. V8 then let the heap reach four times the 60 MB
 * the service keeps alive, and that heap (garbage, not data) was what the
 * service's resident memory measured for minutes after.
 *
 * A flag on the command line would have to be repeated wherever the service
 * is started (npm start, the image, the benchmarks, the tests); set here, it
 * goes wherever the code goes. V8 reads this one each time it sets the next
 * collection's limit, so setting it once the process runs takes effect from
 * the next collection on. The heap limit (`--max-old-space-size`) does not:
 * it is fixed when the heap is made.
 */
export function boundHeapGrowth(percent = HEAP_GROWING_PERCENT): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
