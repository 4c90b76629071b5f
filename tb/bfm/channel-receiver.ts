// The ready side of one ready/valid channel: drives ready (random backpressure, or low
// while the owner has no room) and hands over each payload at its handshake.
// Like ChannelDriver, it reads and writes valid and ready in their port words when it can,
// and skips asking a pauser that never pauses or an owner that always has room.

import { NEVER } from './pause.ts';
import { highOf, setterOf, wordOf, type Drivable, type Readable } from './ports.ts';

export interface ReceiverPorts {
  readonly valid: Readable;
  readonly ready: Drivable<number>;
}

/** The default `room`: the owner takes anything. */
const ALWAYS = (): boolean => true;

export class ChannelReceiver<P> {
  readonly #read: () => P;
  /** null: never pauses. */
  readonly #pause: (() => boolean) | null;
  /** null: always has room. */
  readonly #room: (() => boolean) | null;
  readonly #validWord: Uint32Array | null;
  readonly #valid: () => boolean;
  readonly #readyWord: Uint32Array | null;
  readonly #readyHigh: () => boolean;
  readonly #setReady: (v: 0 | 1) => void;
  /** Handshakes so far. */
  transfers = 0;

  /**
   * `read` takes the payload off the bus; `pause` adds random backpressure; `room` is the
   * owner's capacity (ready stays low while it is false).
   */
  constructor(ports: ReceiverPorts, read: () => P, pause: () => boolean, room: () => boolean = ALWAYS) {
    this.#read = read;
    this.#pause = pause === NEVER ? null : pause;
    this.#room = room === ALWAYS ? null : room;
    this.#validWord = wordOf(ports.valid);
    this.#valid = highOf(ports.valid);
    this.#readyWord = wordOf(ports.ready);
    this.#readyHigh = highOf(ports.ready);
    this.#setReady = setterOf(ports.ready);
    ports.ready.value = 0;
  }

  /** Sample phase: the payload transferred at the coming edge, if any. */
  sample(): P | undefined {
    const vw = this.#validWord, rw = this.#readyWord;
    if (vw !== null ? vw[0] === 0 : !this.#valid()) return undefined;
    if (rw !== null ? rw[0] === 0 : !this.#readyHigh()) return undefined;
    this.transfers++;
    return this.#read();
  }

  /** drive() sets ready high at every drive phase, with nothing asked (no pauser, no room
   *  function): once driven, later drive phases only write the same value again. */
  get alwaysReady(): boolean {
    return this.#room === null && this.#pause === null;
  }

  /** Drive phase: ready for the next cycle (room first, then the pauser, as always). */
  drive(): void {
    const room = this.#room;
    this.driveRoom(room === null || room());
  }

  /**
   * drive() for an owner that tells its room itself instead of giving a `room` function (a
   * bus model driving several channels every cycle: no call through a closure per channel).
   * The pauser is asked only when there is room, as in drive().
   */
  driveRoom(hasRoom: boolean): void {
    const pause = this.#pause;
    const v = hasRoom && (pause === null || !pause()) ? 1 : 0;
    const rw = this.#readyWord;
    if (rw !== null) rw[0] = v;
    else this.#setReady(v);
  }
}
