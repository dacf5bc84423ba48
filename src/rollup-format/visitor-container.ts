// One container of a visitor set: the members of one 65,536-number chunk, either a sorted array of 16-bit values
// (at most 4,095 of them, 2 bytes each) or, when denser, an 8 KiB bitmap. The byte length tells which.
// Like a roaring bitmap's containers: at most 8 KiB whatever the density, O(log n) membership, fast unions.

/** Visitor numbers per container. */
export const chunkBits = 16;
export const chunkSize = 1 << chunkBits;
const bitmapBytes = chunkSize / 8;
const maxArrayMembers = bitmapBytes / 2 - 1;

export function chunkOf(vid: number): number {
  return Math.floor(vid / chunkSize);
}

export function lowOf(vid: number): number {
  return vid % chunkSize;
}

function isBitmap(container: Uint8Array): boolean {
  return container.length === bitmapBytes;
}

/** How many members the container holds. */
export function containerCardinality(container: Uint8Array): number {
  if (!isBitmap(container)) return container.length / 2;
  let count = 0;
  for (let index = 0; index < container.length; index++) count += bitCounts[container[index]!]!;
  return count;
}

const bitCounts = Uint8Array.from({ length: 256 }, (_, byte) => {
  let count = 0;
  for (let bits = byte; bits; bits &= bits - 1) count++;
  return count;
});

/** The members as sorted 16-bit values. */
export function containerMembers(container: Uint8Array): number[] {
  const members: number[] = [];
  if (isBitmap(container)) {
    for (let index = 0; index < container.length; index++) {
      const byte = container[index]!;
      if (byte === 0) continue;
      for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) members.push(index * 8 + bit);
    }
    return members;
  }
  for (let offset = 0; offset < container.length; offset += 2) members.push(container[offset]! | (container[offset + 1]! << 8));
  return members;
}

function toContainer(sortedMembers: number[]): Uint8Array | undefined {
  if (sortedMembers.length === 0) return undefined;
  if (sortedMembers.length > maxArrayMembers) {
    const bitmap = new Uint8Array(bitmapBytes);
    for (const low of sortedMembers) bitmap[low >>> 3]! |= 1 << (low & 7);
    return bitmap;
  }
  const array = new Uint8Array(sortedMembers.length * 2);
  sortedMembers.forEach((low, index) => {
    array[index * 2] = low & 0xff;
    array[index * 2 + 1] = low >>> 8;
  });
  return array;
}

export interface ContainerChange {
  /** The new container; undefined when it became empty. */
  container: Uint8Array | undefined;
  /** Members added (positive) or removed (negative). */
  change: number;
}

function hasSorted(sorted: number[], low: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const middle = (lo + hi) >>> 1;
    const value = sorted[middle]!;
    if (value === low) return true;
    if (value < low) lo = middle + 1;
    else hi = middle - 1;
  }
  return false;
}

function updateBitmap(bitmap: Uint8Array, add: readonly number[], remove: readonly number[]): ContainerChange {
  let change = 0;
  let copy: Uint8Array | undefined;
  const writable = () => (copy ??= Uint8Array.from(bitmap));
  for (const low of add) {
    if (((copy ?? bitmap)[low >>> 3]! & (1 << (low & 7))) === 0) {
      writable()[low >>> 3]! |= 1 << (low & 7);
      change++;
    }
  }
  for (const low of remove) {
    if (((copy ?? bitmap)[low >>> 3]! & (1 << (low & 7))) !== 0) {
      writable()[low >>> 3]! &= ~(1 << (low & 7));
      change--;
    }
  }
  if (!copy) return { container: bitmap, change: 0 };
  // A bitmap that became sparse goes back to an array (so the byte length keeps telling the kind).
  return { container: containerCardinality(copy) > maxArrayMembers ? copy : toContainer(containerMembers(copy)), change };
}

/**
 * Adds and removes 16-bit members; the same container comes back when nothing changes.
 * @example const { container, change } = updateContainer(stored, [5, 9], []);
 */
export function updateContainer(container: Uint8Array | undefined, add: readonly number[], remove: readonly number[]): ContainerChange {
  if (container && isBitmap(container)) return updateBitmap(container, add, remove);
  const members = container ? containerMembers(container) : [];
  const added = [...new Set(add)].filter((low) => !hasSorted(members, low));
  const removed = new Set(remove.filter((low) => hasSorted(members, low) || added.includes(low)));
  if (added.length === 0 && removed.size === 0) return { container, change: 0 };
  const next = [...members, ...added].filter((low) => !removed.has(low)).sort((a, b) => a - b);
  return { container: toContainer(next), change: next.length - members.length };
}

/**
 * ORs a container into a bitset of 32-bit words that holds whole chunks (chunk c starts at word c * 2048).
 * @example orContainerInto(words, 0, container);
 */
export function orContainerInto(words: Uint32Array, chunk: number, container: Uint8Array): void {
  const base = chunk * (chunkSize / 32);
  if (isBitmap(container)) {
    for (let word = 0; word < chunkSize / 32; word++) {
      const offset = word * 4;
      words[base + word]! |= container[offset]! | (container[offset + 1]! << 8) | (container[offset + 2]! << 16) | (container[offset + 3]! << 24);
    }
    return;
  }
  for (let offset = 0; offset < container.length; offset += 2) {
    const low = container[offset]! | (container[offset + 1]! << 8);
    words[base + (low >>> 5)]! |= 1 << (low & 31);
  }
}

/** Members of a bitset (population count). */
export function countBits(words: Uint32Array): number {
  let count = 0;
  for (let index = 0; index < words.length; index++) {
    let word = words[index]!;
    if (word === 0) continue;
    word -= (word >>> 1) & 0x55555555;
    word = (word & 0x33333333) + ((word >>> 2) & 0x33333333);
    count += (((word + (word >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return count;
}
