// The valid side of one ready/valid channel: presents queued payloads one at a time and
// holds each (valid and payload unchanged) until the handshake, as AXI requires. The owning
// model calls sample() in the sample phase and drive() in the drive phase (clock-phases.ts),
// so it decides the order of its channels within a cycle.
//
// Both run every cycle on every channel of every bus model, so valid and ready are read and
// written in their port words when the handles have them, and a model that never pauses is
// not asked (NEVER), rather than going through a closure per test.

import { NEVER } from './pause.ts';
import { highOf, setterOf, wordOf, type Drivable, type Readable } from './ports.ts';
import { Queue } from './queue.ts';

export interface DriverPorts {
  readonly valid: Drivable<number>;
  readonly ready: Readable;
}

interface Item<P> {
  readonly payload: P;
  readonly done: ((cycle: number, payload: P) => void) | undefined;
}

export class ChannelDriver<P> {
  readonly #write: (p: P) => void;
  /** null: never pauses. */
  readonly #pause: (() => boolean) | null;
  readonly #queue = new Queue<Item<P>>();
  readonly #readyWord: Uint32Array | null;
  readonly #ready: () => boolean;
  readonly #validWord: Uint32Array | null;
  readonly #setValid: (v: 0 | 1) => void;
  #current: Item<P> | null = null;
  /** Handshakes so far. */
  transfers = 0;

  /** `write` puts a payload on the bus's data signals; `pause` says when to idle instead. */
  constructor(ports: DriverPorts, write: (p: P) => void, pause: () => boolean) {
    this.#write = write;
    this.#pause = pause === NEVER ? null : pause;
    this.#readyWord = wordOf(ports.ready);
    this.#ready = highOf(ports.ready);
    this.#validWord = wordOf(ports.valid);
    this.#setValid = setterOf(ports.valid);
    ports.valid.value = 0;
  }

  /** Queues a payload; `done` runs in the sample phase of the cycle whose edge transfers it
   *  (it gets the payload too, so one function can serve every item). */
  push(payload: P, done?: (cycle: number, payload: P) => void): void {
    this.#queue.push({ payload, done });
  }

  /** Payloads queued or on the bus. */
  get pending(): number {
    return this.#queue.length + (this.#current ? 1 : 0);
  }

  /** A payload is on the bus (valid is high): only then can sample() see a handshake. */
  get offering(): boolean {
    return this.#current !== null;
  }

  /** Sample phase: true when the payload on the bus is taken at the coming edge. */
  sample(cycle: number): boolean {
    const cur = this.#current;
    if (!cur) return false;
    const rw = this.#readyWord;
    if (rw !== null ? rw[0] === 0 : !this.#ready()) return false;
    this.#current = null;
    this.transfers++;
    cur.done?.(cycle, cur.payload);
    return true;
  }

  /** Drive phase: keep the current payload, or present the next one unless pausing. */
  drive(): void {
    if (this.#current) return;
    const pause = this.#pause;
    if (this.#queue.length > 0 && (pause === null || !pause())) {
      this.#current = this.#queue.shift()!;
      this.#write(this.#current.payload);
      this.#valid(1);
    } else {
      this.#valid(0);
    }
  }

  #valid(v: 0 | 1): void {
    const w = this.#validWord;
    if (w !== null) w[0] = v;
    else this.#setValid(v);
  }
}
