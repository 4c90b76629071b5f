// The NIC's functional coverage bins (counted by nic-collector.ts). Each group is a cross of
// a few dimensions; adding a bin is adding a value to a dimension here (one line), plus, for
// a new kind of event, the line in nic-collector.ts that observes it. Combinations the NIC
// cannot produce are `unsupported`, with the reason, so a hole is always a real gap.
//
// Retransmission (issue 11): the NAK 0x60 in ACK/NAK kind, RETRY_EXCEEDED in status x op, the
// resent packets in 'retransmission' (seen on the wire). Which cause (NAK, implied NAK,
// timeout) made a resend is not on the wire; the NIC's counters (docs/nic-reliability.md) say.

import { dim, type CoverGroupSpec } from '../../coverage/functional.ts';

export const OPS = ['WRITE', 'READ'] as const;
export const PMTUS = [256, 512, 1024, 2048, 4096] as const;

/** Message length classes at a path MTU, by length only (classes do not overlap):
 *  0, 1, <mtu (2..mtu-1), =mtu, >mtu (up to one 4 KiB page), multi-page (4097..65535), 64KiB. */
export const SIZE_CLASSES = ['0', '1', '<mtu', '=mtu', '>mtu', 'multi-page', '64KiB'] as const;
export type SizeClass = typeof SIZE_CLASSES[number];

export const PAGE_BYTES = 4096;

export function sizeClass(len: number, mtu: number): SizeClass {
  if (len === 0) return '0';
  if (len === 1) return '1';
  if (len === 65536) return '64KiB';
  if (len < mtu) return '<mtu';
  if (len === mtu) return '=mtu';
  return len <= PAGE_BYTES ? '>mtu' : 'multi-page';
}

/** CQE statuses by name (gen/nic/regmap.ts CQE_STATUS). */
export const STATUSES = [
  'SUCCESS', 'LOCAL_LENGTH_ERROR', 'LOCAL_QP_ERROR', 'LOCAL_PROTECTION_ERROR', 'REMOTE_ACCESS_ERROR',
  'REMOTE_INVALID_REQUEST', 'REMOTE_OPERATIONAL_ERROR', 'RETRY_EXCEEDED', 'FLUSH_ERROR', 'BAD_OPCODE',
] as const;

/** Why a remote access check failed (tb/nic/protection-scenario.ts, read-protection-scenario.ts). */
export const VIOLATIONS = ['bad-tag', 'bad-pd', 'no-access', 'out-of-bounds'] as const;

/** RC opcodes the NICs put on the wire, by name (tb/model/wire-expect.ts RC_OP). */
export const WIRE_OPCODES = [
  'WRITE_FIRST', 'WRITE_MIDDLE', 'WRITE_LAST', 'WRITE_ONLY', 'READ_REQUEST',
  'READ_RESPONSE_FIRST', 'READ_RESPONSE_MIDDLE', 'READ_RESPONSE_LAST', 'READ_RESPONSE_ONLY', 'ACK',
] as const;

/** AETH syndromes of ACK packets (gen/nic/flow-types.ts AETH). */
export const ACK_KINDS = ['ack', 'nak-psn-seq', 'nak-invalid-request', 'nak-remote-access', 'nak-remote-op'] as const;

export const NIC_GROUPS = {
  opSize: {
    name: 'op x size', about: 'a completion checked by the scoreboard: opcode x message length class at the QP\'s path MTU',
    dims: [dim('op', OPS), dim('size', SIZE_CLASSES)],
  },
  opPmtu: {
    name: 'op x path MTU', about: 'a completion checked by the scoreboard: opcode x the QP\'s path MTU',
    dims: [dim('op', OPS), dim('pmtu', PMTUS)],
  },
  sizePmtu: {
    name: 'size x path MTU', about: 'a successful completion checked by the scoreboard (either opcode): length class x path MTU',
    dims: [dim('size', SIZE_CLASSES), dim('pmtu', PMTUS)],
    unsupported: [{ where: { size: '>mtu', pmtu: '4096' }, why: 'a message longer than a 4096-byte MTU is longer than a page: it is multi-page' }],
  },
  opSges: {
    name: 'op x SGEs', about: 'a completion checked by the scoreboard: opcode x scatter/gather entries in the WQE (0..4)',
    dims: [dim('op', OPS), dim('sges', [0, 1, 2, 3, 4])],
  },
  opAlign: {
    name: 'op x alignment', about: 'a successful completion: remote VA and first local SGE address, each aligned to the 8-byte datapath or not',
    dims: [dim('op', OPS), dim('remote', ['aligned', 'unaligned']), dim('local', ['aligned', 'unaligned'])],
  },
  opFlags: {
    name: 'op x flags', about: 'a successful completion: signaled (own CQE) or unsignaled (completed by a later CQE), fenced or not',
    dims: [dim('op', OPS), dim('signaled', ['yes', 'no']), dim('fence', ['yes', 'no'])],
  },
  qps: {
    name: 'QPs', about: 'a scoreboard finish() that passed: QPs that carried work on the busiest host',
    dims: [dim('qps', [1, 2, 3, 4])],
  },
  status: {
    name: 'status x op', about: 'a CQE the scoreboard checked: its status x the WQE opcode (other = not WRITE or READ)',
    dims: [dim('status', STATUSES), dim('op', [...OPS, 'other'])],
    unsupported: [
      {
        where: { op: 'other', status: STATUSES.filter(s => !['BAD_OPCODE', 'FLUSH_ERROR', 'LOCAL_QP_ERROR'].includes(s)) },
        why: 'nic_req_tx checks the QP state (ERROR: FLUSH_ERROR, not RTS: LOCAL_QP_ERROR), then the opcode: an unknown one goes no further',
      },
      { where: { status: 'BAD_OPCODE', op: OPS }, why: 'WRITE and READ are the opcodes the NIC knows' },
      { where: { status: 'REMOTE_INVALID_REQUEST' }, why: 'NAK 0x61 answers a third outstanding READ, which nic_req_tx never sends (tb/tests/replay/read-limit.test.ts drives it from a capture)' },
      { where: { status: 'REMOTE_OPERATIONAL_ERROR' }, why: 'no responder path sends NAK 0x63' },
    ],
  },
  violation: {
    name: 'remote access violation', about: 'an error CQE for a remote access check the responder failed (NAK 0x62), by cause',
    dims: [dim('op', OPS), dim('cause', VIOLATIONS)],
  },
  wireOpcode: {
    name: 'wire opcode', about: 'a frame on the link, by RC opcode',
    dims: [dim('opcode', WIRE_OPCODES)],
  },
  wirePad: {
    name: 'wire pad', about: 'a frame with payload that ends a message (WRITE LAST/ONLY, READ RESPONSE LAST/ONLY): BTH pad count',
    dims: [dim('kind', ['write', 'read-response']), dim('pad', [0, 1, 2, 3])],
  },
  ackKind: {
    name: 'ACK/NAK kind', about: 'an ACK packet on the link, by AETH syndrome',
    dims: [dim('kind', ACK_KINDS)],
    unsupported: [
      { where: { kind: 'nak-invalid-request' }, why: 'nic_req_tx never sends a third outstanding READ' },
      { where: { kind: 'nak-remote-op' }, why: 'no responder path sends NAK 0x63' },
    ],
  },
  retransmission: {
    name: 'retransmission', about: 'a request sent again on its QP and direction: a WRITE packet or READ REQUEST at a PSN sent before (go-back-N), or a READ REQUEST for the tail of an earlier READ (same rkey and end address, later PSN: a partial re-request)',
    dims: [dim('kind', ['write', 'read-request', 'read-partial'])],
  },
  linkFault: {
    name: 'link fault', about: 'a run whose scoreboard finished with the link\'s fault model having done this on a direction at least once (tb/nic/link-faults.ts): drop (random or targeted), drop in a Gilbert-Elliott burst, one-bit corruption, duplication, reordering, a targeted fault hit',
    dims: [dim('fault', ['drop', 'burst-drop', 'corrupt', 'dup', 'reorder', 'targeted']), dim('dir', ['a->b', 'b->a'])],
  },
  recovery: {
    name: 'NIC recovery', about: 'a run that ended with this recovery counter of a NIC above 0 (read after its last CQE): requests retransmitted, ACK timeouts, NAK 0x60 sent and received, duplicate requests received, work requests failed with RETRY_EXCEEDED',
    dims: [dim('counter', ['RETX_PKTS', 'ACK_TIMEOUTS', 'SEQ_NAK_TX', 'SEQ_NAK_RX', 'DUP_REQ_RX', 'RETRY_EXC']), dim('host', ['A', 'B'])],
  },
  psnWrap: {
    name: 'PSN wrap', about: 'a packet on the link whose PSN is 0 right after 0xffffff on its QP and direction',
    dims: [dim('kind', ['request', 'read-response'])],
  },
} as const satisfies Record<string, CoverGroupSpec>;
