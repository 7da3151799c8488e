// A matrix's face ids, compactly. As JS strings in an array plus a Map to find their rows, 1M
// ids took ~100 MB (estimated; more than the int8 rows' 128 MB allow beside them in 200 MB);
// here an id in the engine's own form (a lowercase UUID, face-id.ts) is 16 bytes of one typed
// array, found through an open-addressing table of row numbers (linear probing, backward-shift
// deletion); any other id (a gallery file may keep its own) lives in a Map as before.

import { uuidOfBytes, writeUuidBytes } from './face-id.ts';

const EMPTY = -1;

/** one id's bytes: a reopen parses a million ids, so no array per id */
const scratch = new Uint8Array(16);

/** the 16 bytes of a lowercase UUID in a shared scratch array (valid until the next call), or undefined for any other id */
function uuidBytes(id: string): Uint8Array | undefined {
  return writeUuidBytes(id, scratch, 0) ? scratch : undefined;
}

export class FaceIdTable {
  private bytes = new Uint8Array(0);
  /** 1 where the row's id is in `bytes` */
  private packed = new Uint8Array(0);
  private readonly otherIds = new Map<number, string>();
  private readonly otherRows = new Map<string, number>();
  private slots = new Int32Array(0);
  private mask = -1;
  private used = 0;
  /** rows [deferFrom, deferTo) have their bytes but are not in `slots` yet (deferRows) */
  private deferFrom = 0;
  private deferTo = 0;

  /** bytes held (typed arrays exactly; the Map of other ids not counted) */
  get byteLength(): number {
    return this.bytes.byteLength + this.packed.byteLength + this.slots.byteLength;
  }

  /** other ids, for the memory estimate */
  get others(): IterableIterator<string> {
    return this.otherRows.keys();
  }

  grow(capacity: number): void {
    if (capacity * 16 > this.bytes.length) {
      const bytes = new Uint8Array(capacity * 16);
      bytes.set(this.bytes);
      this.bytes = bytes;
      const packed = new Uint8Array(capacity);
      packed.set(this.packed);
      this.packed = packed;
    }
    // room for `capacity` ids at half load now: a reopen of 1M rows otherwise rehashes ~11 times
    let size = Math.max(1024, this.slots.length);
    while (capacity * 2 > size) size *= 2;
    if (size > this.slots.length) this.rehash(size);
  }

  id(row: number): string {
    if (!this.packed[row]) return this.otherIds.get(row)!;
    return uuidOfBytes(this.bytes, row * 16);
  }

  rowOf(id: string): number | undefined {
    const bytes = uuidBytes(id);
    if (!bytes) return this.otherRows.get(id);
    if (this.used === 0) return undefined;
    for (let s = this.home(bytes, 0); ; s = (s + 1) & this.mask) {
      const row = this.slots[s]!;
      if (row === EMPTY) return undefined;
      if (this.packed[row] && this.sameBytes(row, bytes)) return row;
    }
  }

  /**
   * Row `row` (capacity grown) gets `id` unless the table has it already (false, no change): one
   * probe where `rowOf` then `set` take two — a reopen adds a million ids.
   */
  trySet(row: number, id: string): boolean {
    const bytes = uuidBytes(id);
    if (bytes) return this.trySetBytes(row, bytes, 0);
    if (this.otherRows.has(id)) return false;
    this.set(row, id);
    return true;
  }

  /**
   * trySet for a UUID given as its 16 bytes source[at, at + 16) (a stored segment's, face-id.ts):
   * a reopen builds the table from them without a string.
   */
  trySetBytes(row: number, source: Uint8Array, at: number): boolean {
    const bytes = this.bytes;
    const to = row * 16;
    for (let i = 0; i < 16; i++) bytes[to + i] = source[at + i]!;
    if (!this.place(row)) return false;
    this.packed[row] = 1;
    return true;
  }

  /** Puts `row` (its bytes in place) into the slots, unless a row already there has its id (false). */
  private place(row: number): boolean {
    if ((this.used + 1) * 2 > this.slots.length) this.rehash(Math.max(1024, this.slots.length * 2));
    let s = this.home(this.bytes, row * 16);
    for (; this.slots[s] !== EMPTY; s = (s + 1) & this.mask) {
      const other = this.slots[s]!;
      if (this.packed[other] && this.sameRows(other, row)) return false;
    }
    this.slots[s] = row;
    this.used++;
    return true;
  }

  /** Row `row` (capacity grown) gets `id`, which is not in the table. */
  set(row: number, id: string): void {
    const bytes = uuidBytes(id);
    if (!bytes) {
      this.packed[row] = 0;
      this.otherIds.set(row, id);
      this.otherRows.set(id, row);
      return;
    }
    this.packed[row] = 1;
    this.bytes.set(bytes, row * 16);
    if ((this.used + 1) * 2 > this.slots.length) this.rehash(Math.max(1024, this.slots.length * 2));
    this.insert(row);
    this.used++;
  }

  /**
   * Rows [start, start + n) get the UUIDs in ids[0, n × 16) (capacity grown) without being
   * looked up: a reopen's first search needs ids by row only, so finding rows by id (the
   * slots, ~a third of the build at 1M) waits for `index()`. Only right after the rows
   * deferred before, if any. Every method but `id` and `deferRows` wants `index()` first.
   */
  deferRows(start: number, ids: Uint8Array, n: number): void {
    if (this.deferTo > this.deferFrom && this.deferTo !== start) throw new Error('deferred rows must be contiguous');
    if (this.deferTo === this.deferFrom) this.deferFrom = start;
    this.bytes.set(ids.subarray(0, n * 16), start * 16);
    this.packed.fill(1, start, start + n);
    this.deferTo = start + n;
  }

  /** Whether deferred rows wait for `index()`. */
  get deferred(): boolean {
    return this.deferTo > this.deferFrom;
  }

  /**
   * Puts the deferred rows into the slots. Returns the rows whose id an earlier row has
   * (ascending): they are left out (as if deleted) and their owner removes them.
   */
  index(): number[] {
    const duplicates: number[] = [];
    for (let row = this.deferFrom; row < this.deferTo; row++) {
      if (this.place(row)) continue;
      this.packed[row] = 0;
      duplicates.push(row);
    }
    this.deferFrom = this.deferTo = 0;
    return duplicates;
  }

  /** Forgets row `row`'s id. */
  delete(row: number): void {
    if (!this.packed[row]) {
      const id = this.otherIds.get(row);
      this.otherIds.delete(row);
      if (id !== undefined) this.otherRows.delete(id);
      return;
    }
    let hole = this.slotOf(row);
    this.used--;
    // backward-shift: move later entries of the probe run into the hole where their home allows
    for (let j = (hole + 1) & this.mask; this.slots[j] !== EMPTY; j = (j + 1) & this.mask) {
      const home = this.home(this.bytes, this.slots[j]! * 16);
      const between = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!between) {
        this.slots[hole] = this.slots[j]!;
        hole = j;
      }
    }
    this.slots[hole] = EMPTY;
  }

  /** Row `from`'s id now belongs to row `to` (whose own id was deleted). */
  move(from: number, to: number): void {
    if (!this.packed[from]) {
      const id = this.otherIds.get(from)!;
      this.otherIds.delete(from);
      this.packed[to] = 0;
      this.otherIds.set(to, id);
      this.otherRows.set(id, to);
      return;
    }
    const slot = this.slotOf(from);
    this.bytes.copyWithin(to * 16, from * 16, from * 16 + 16);
    this.packed[to] = 1;
    this.slots[slot] = to;
  }

  private home(bytes: Uint8Array, at: number): number {
    // bytes 12–15 of a UUIDv7 (or v4) are random
    return ((bytes[at + 12]! << 24) | (bytes[at + 13]! << 16) | (bytes[at + 14]! << 8) | bytes[at + 15]!) & this.mask;
  }

  private sameBytes(row: number, bytes: Uint8Array): boolean {
    const at = row * 16;
    for (let i = 15; i >= 0; i--) if (this.bytes[at + i] !== bytes[i]) return false;
    return true;
  }

  private sameRows(a: number, b: number): boolean {
    const bytes = this.bytes;
    for (let i = 15; i >= 0; i--) if (bytes[a * 16 + i] !== bytes[b * 16 + i]) return false;
    return true;
  }

  private slotOf(row: number): number {
    for (let s = this.home(this.bytes, row * 16); ; s = (s + 1) & this.mask) if (this.slots[s] === row) return s;
  }

  private insert(row: number): void {
    let s = this.home(this.bytes, row * 16);
    while (this.slots[s] !== EMPTY) s = (s + 1) & this.mask;
    this.slots[s] = row;
  }

  private rehash(size: number): void {
    const old = this.slots;
    this.slots = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
    for (const row of old) if (row !== EMPTY) this.insert(row);
  }
}
