// nic_top with the real message-flow stages (wiring and decisions in nic-top-build.ts), and
// the test-only nic_pair of two of them.

import { nicAckTracker } from './ack-tracker.ts';
import { makeNicPair } from './nic-pair.ts';
import { makeNicTop } from './nic-top-build.ts';
import { nicReqTx } from './req-tx.ts';
import { responder } from './responder.ts';

export const nicTop = makeNicTop({ reqTx: nicReqTx, ackTracker: nicAckTracker, responder });
export const nicPair = makeNicPair(nicTop);
