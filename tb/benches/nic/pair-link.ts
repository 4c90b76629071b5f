// The link of a nic_pair bench, from its LinkArgs: the captures opened (and always closed),
// the faults handed to the link model, and whether the run is lossy (faults that can lose,
// corrupt, duplicate or reorder frames are on), which the scenarios need to know: without
// faults a dropped frame is a receive-path bug; with them it is expected.

import { PcapWriter } from '../../model/pcap.ts';
import type { PairEnvOptions } from '../../nic/env.ts';
import { hasFaults, LINK_DIRS } from '../../nic/link-faults.ts';
import type { LinkArgs } from '../bench.ts';
import { retryReg } from '../../../gen/nic/regmap.ts';

/** RETRY of every QP on a lossy link: 3 retries, ACK timeout 2^16 cycles. */
export const LOSSY_RETRY = retryReg({ retryCnt: 3, timeoutLog2: 16 });

export interface PairLink {
  /** `base` with the captures and faults added. */
  readonly env: PairEnvOptions;
  /** Some direction has faults. */
  readonly lossy: boolean;
}

/** Runs `body` with the link of `args` on top of `base`; the captures are closed afterwards,
 *  also when `body` fails (every frame written so far stays readable). */
export async function withPairLink<T>(args: LinkArgs, base: PairEnvOptions, body: (link: PairLink) => Promise<T>): Promise<T> {
  const pcap = args.pcap ? PcapWriter.open(args.pcap) : undefined;
  const pcapRx = args.pcapRx ? PcapWriter.open(args.pcapRx) : undefined;
  try {
    const lossy = args.faults !== undefined && LINK_DIRS.some(d => hasFaults(args.faults![d]));
    const env: PairEnvOptions = {
      // A lossy link: an ACK timeout of 2^16 cycles (the register's reset value, 2^20, makes a
      // lost tail packet or last ACK cost a million cycles, past the benches' stall limits).
      ...(lossy ? { qpRetry: LOSSY_RETRY } : {}),
      ...base,
      ...(pcap ? { pcap } : {}),
      link: { ...base.link, ...(pcapRx ? { pcapRx } : {}), ...(args.faults ? { faults: args.faults } : {}) },
    };
    return await body({ env, lossy });
  } finally {
    pcap?.close();
    pcapRx?.close();
  }
}
