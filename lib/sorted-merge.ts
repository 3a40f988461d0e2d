/**
 * The first `n` entries of the merge of several sorted lists of numbers, without merging the rest:
 * a heap of the lists' heads, so taking n entries of k lists costs n log k, whatever the lists'
 * total length. Each list is sorted ascending; the merge runs ascending, or descending (each list
 * read from its end). Entries with equal values are ordered by their list's `ties` value (in the
 * merge's direction), then by list number (always ascending: the lists' own order): for lists
 * without repeated values, the order a stable sort by (value, tie) of the lists' entries,
 * concatenated, gives. (A value repeated within one list comes in the merge's direction.)
 *
 * The answer says where each entry is: its list and its index in that list.
 */
export interface Merged {
  list: Int32Array
  index: Int32Array
}

export function mergeFirst(lists: ReadonlyArray<ArrayLike<number>>, ties: ArrayLike<number>, n: number, descending = false): Merged {
  const sign = descending ? -1 : 1
  // The heads: for each list in the heap, the index of its next entry.
  const next = new Int32Array(lists.length)
  const heap: number[] = []
  let total = 0
  for (let l = 0; l < lists.length; l++) {
    const length = (lists[l] as ArrayLike<number>).length
    total += length
    if (length === 0) continue
    next[l] = descending ? length - 1 : 0
    heap.push(l)
  }
  const value = (l: number) => (lists[l] as ArrayLike<number>)[next[l] as number] as number
  // Whether list a's head comes before list b's.
  const before = (a: number, b: number) => {
    const x = value(a)
    const y = value(b)
    if (x !== y) return sign * (x - y) < 0
    const tx = ties[a] as number
    const ty = ties[b] as number
    if (tx !== ty) return sign * (tx - ty) < 0
    return a < b
  }
  const down = (i: number) => {
    for (;;) {
      const left = 2 * i + 1
      if (left >= heap.length) return
      const right = left + 1
      const child = right < heap.length && before(heap[right] as number, heap[left] as number) ? right : left
      if (!before(heap[child] as number, heap[i] as number)) return
      ;[heap[i], heap[child]] = [heap[child] as number, heap[i] as number]
      i = child
    }
  }
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i)

  const count = Math.max(0, Math.min(n, total))
  const out: Merged = { list: new Int32Array(count), index: new Int32Array(count) }
  for (let k = 0; k < count; k++) {
    const l = heap[0] as number
    out.list[k] = l
    out.index[k] = next[l] as number
    const moved = (next[l] as number) + (descending ? -1 : 1)
    if (moved < 0 || moved >= (lists[l] as ArrayLike<number>).length) {
      // This list is spent: the last head takes the top's place.
      heap[0] = heap[heap.length - 1] as number
      heap.pop()
    } else next[l] = moved
    if (heap.length > 0) down(0)
  }
  return out
}
