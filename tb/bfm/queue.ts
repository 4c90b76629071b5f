// A FIFO with O(1) push and shift. Array.prototype.shift is O(n) on large arrays, and a
// source queues every beat of every packet a test sends up front (50 000 beats made it
// the hottest function of a streaming test).

export class Queue<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, or undefined when empty. */
  peek(): T | undefined {
    return this.#items[this.#head];
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    // Drop the consumed prefix once it is most of the array, so memory stays bounded.
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}
