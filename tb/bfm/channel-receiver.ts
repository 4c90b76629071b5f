// The ready side of one ready/valid channel: drives ready (random backpressure, or low
// while the owner has no room) and hands over each payload at its handshake.

import { highOf, setterOf, type Drivable, type Readable } from './ports.ts';

export interface ReceiverPorts {
  readonly valid: Readable;
  readonly ready: Drivable<number>;
}

export class ChannelReceiver<P> {
  readonly #read: () => P;
  readonly #pause: () => boolean;
  readonly #room: () => boolean;
  readonly #valid: () => boolean;
  readonly #readyHigh: () => boolean;
  readonly #setReady: (v: 0 | 1) => void;
  /** Handshakes so far. */
  transfers = 0;

  /**
   * `read` takes the payload off the bus; `pause` adds random backpressure; `room` is the
   * owner's capacity (ready stays low while it is false).
   */
  constructor(ports: ReceiverPorts, read: () => P, pause: () => boolean, room: () => boolean = () => true) {
    this.#read = read;
    this.#pause = pause;
    this.#room = room;
    this.#valid = highOf(ports.valid);
    this.#readyHigh = highOf(ports.ready);
    this.#setReady = setterOf(ports.ready);
    ports.ready.value = 0;
  }

  /** Sample phase: the payload transferred at the coming edge, if any. */
  sample(): P | undefined {
    if (!this.#valid() || !this.#readyHigh()) return undefined;
    this.transfers++;
    return this.#read();
  }

  /** Drive phase: ready for the next cycle. */
  drive(): void {
    this.#setReady(this.#room() && !this.#pause() ? 1 : 0);
  }
}
