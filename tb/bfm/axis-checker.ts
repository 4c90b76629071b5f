// AXI4-Stream rules on top of the ready/valid checker, for any stream: the ends of a DUT
// (the source and sink models attach it by default) or an internal stream.
//
//   TVALID_STABLE, TDATA_STABLE, TKEEP_STABLE, TLAST_STABLE, TUSER_STABLE  (channel-checker.ts)
//   TKEEP_ZERO        a beat with no valid byte (zero-length beats are not used here)
//   TKEEP_CONTIGUOUS  valid bytes not contiguous from byte 0 (packed streams only)
//   TKEEP_FULL        a beat before tlast that is not full
//
// Packed streams with contiguous tkeep are what MACs such as Corundum's and Xilinx CMAC
// exchange; null and position bytes in the middle of a packet are not supported here.

import type { PortValue } from '../../sim/values.ts';
import type { TestBench } from '../core/index.ts';
import { watchChannel, type ChannelWatch } from './channel-checker.ts';
import { big, portWidth, type Readable } from './ports.ts';
import { ProtocolError } from './protocol-error.ts';

export interface AxisWatchPorts {
  readonly tdata: Readable;
  readonly tvalid: Readable;
  readonly tready: Readable;
  readonly tkeep?: Readable;
  readonly tlast?: Readable;
  readonly tuser?: Readable;
}

export interface AxisBeat {
  readonly data: bigint;
  /** All ones when the stream has no tkeep. */
  readonly keep: bigint;
  /** True when the stream has no tlast (every beat ends a packet). */
  readonly last: boolean;
  readonly user: bigint;
}

export interface AxisWatchOptions {
  readonly reset?: Readable;
  /** Called for every beat after the rules passed. */
  readonly onBeat?: (beat: AxisBeat, cycle: number) => void;
}

export function watchAxiStream(tb: TestBench, ports: AxisWatchPorts, name: string, options: AxisWatchOptions = {}): ChannelWatch {
  const bytes = portWidth(tb, ports.tdata) / 8;
  const full = (1n << BigInt(bytes)) - 1n;
  const payload = { tdata: ports.tdata, tkeep: ports.tkeep, tlast: ports.tlast, tuser: ports.tuser };
  const order = Object.entries(payload).filter(e => e[1] !== undefined).map(e => e[0]);
  const at = (values: readonly PortValue[], key: string): PortValue | undefined => {
    const i = order.indexOf(key);
    return i < 0 ? undefined : values[i];
  };
  return watchChannel(tb, { valid: ports.tvalid, ready: ports.tready, payload }, name, {
    ...(options.reset ? { reset: options.reset } : {}),
    onTransfer: (values, cycle) => {
      const keepV = at(values, 'tkeep');
      const lastV = at(values, 'tlast');
      const userV = at(values, 'tuser');
      const beat: AxisBeat = {
        data: big(values[0]!),
        keep: keepV === undefined ? full : big(keepV),
        last: lastV === undefined ? true : big(lastV) !== 0n,
        user: userV === undefined ? 0n : big(userV),
      };
      const k = beat.keep;
      const kname = ports.tkeep?.name ?? 'tkeep';
      if (k === 0n) throw new ProtocolError(name, 'TKEEP_ZERO', cycle, `beat with ${kname} == 0 (no valid byte)`);
      if ((k & (k + 1n)) !== 0n) {
        throw new ProtocolError(name, 'TKEEP_CONTIGUOUS', cycle, `${kname} = 0b${k.toString(2)} is not contiguous from byte 0`);
      }
      if (!beat.last && k !== full) {
        throw new ProtocolError(name, 'TKEEP_FULL', cycle, `${kname} = 0b${k.toString(2)} on a beat without tlast (only the last beat may be partial)`);
      }
      options.onBeat?.(beat, cycle);
    },
  });
}
