// Turns a captured packet into the frame nic_top's RX port takes: an Ethernet frame without
// FCS and without VLAN tags (the NIC parses neither). Real captures differ from that in ways
// that say nothing about the sender: Linux cooked captures (SLL/SLL2) have no Ethernet header,
// a capture may keep the 4-byte FCS, the switch port may tag frames. Each change is recorded
// as a note on the frame, so the verdict list shows exactly what was fed.

import { crc32 } from '../../gen/lib/crc-model.ts';
import { ETH_HEADER_BYTES, ETHERTYPE_IPV4, formatMac, readMac, readU16, writeMac } from '../model/headers.ts';
import { LINKTYPE_LINUX_SLL, LINKTYPE_LINUX_SLL2, type CaptureFile, type CaptureInterface, type CapturedPacket } from './capture-file.ts';

export interface CleanupOptions {
  /** Every frame ends with a 4-byte FCS (--fcs), whatever the capture declares. */
  readonly fcs?: boolean;
  /** Destination MAC of rebuilt Ethernet headers (the NIC's own: SLL keeps only the sender's). */
  readonly nicMac: number;
}

/** One frame ready for the RX port, with what was done to it. */
export interface InputFrame {
  readonly data: Uint8Array;
  /** Length as captured (before any clean-up). */
  readonly capturedLength: number;
  /** The capture's snaplen cut it (caplen < len). */
  readonly truncated: boolean;
  /** What was changed or noticed, one short phrase each. */
  readonly notes: readonly string[];
}

const FCS_BYTES = 4;
const SLL_BYTES = 16, SLL2_BYTES = 20;
/** Tag ethertypes: 802.1Q, 802.1ad (QinQ outer), and the pre-standard QinQ 0x9100. */
const VLAN_TAGS: ReadonlyMap<number, string> = new Map([[0x8100, '802.1Q'], [0x88a8, '802.1ad'], [0x9100, 'QinQ 0x9100']]);
const VLAN_TAG_BYTES = 4;
const hex = (n: number, digits: number): string => `0x${n.toString(16).padStart(digits, '0')}`;

/** Where the SLL header keeps the protocol and the sender's address. */
function sllFields(data: Uint8Array, linktype: number): { protocol: number; addrLen: number; addrAt: number; bytes: number } {
  return linktype === LINKTYPE_LINUX_SLL
    ? { protocol: readU16(data, 14), addrLen: readU16(data, 4), addrAt: 6, bytes: SLL_BYTES }
    : { protocol: readU16(data, 0), addrLen: data[11]!, addrAt: 12, bytes: SLL2_BYTES };
}

/** SLL/SLL2 -> Ethernet: dst = the NIC's MAC, src = the captured sender address (if a MAC). */
function rebuildEthernet(data: Uint8Array, linktype: number, nicMac: number, notes: string[]): Uint8Array {
  const name = linktype === LINKTYPE_LINUX_SLL ? 'SLL' : 'SLL2';
  const f = data.length >= (linktype === LINKTYPE_LINUX_SLL ? SLL_BYTES : SLL2_BYTES) ? sllFields(data, linktype) : undefined;
  if (!f) { notes.push(`${name} header cut short (${data.length} bytes): fed as captured`); return data; }
  const out = new Uint8Array(ETH_HEADER_BYTES + data.length - f.bytes);
  writeMac(out, 0, nicMac);
  if (f.addrLen === 6) out.set(data.subarray(f.addrAt, f.addrAt + 6), 6);
  out[12] = f.protocol >> 8; out[13] = f.protocol & 0xff;
  out.set(data.subarray(f.bytes), ETH_HEADER_BYTES);
  const src = formatMac(readMac(out, 6));
  const what = f.protocol === ETHERTYPE_IPV4 ? 'IPv4' : `protocol ${hex(f.protocol, 4)}, not IPv4`;
  notes.push(`${name} (Linux cooked, ${what}): Ethernet header rebuilt, dst ${formatMac(nicMac)} src ${src}`);
  return out;
}

/** How many FCS bytes the frame ends with: --fcs, else the packet's or interface's word. */
function fcsBytes(p: CapturedPacket, iface: CaptureInterface, o: CleanupOptions): number {
  if (o.fcs) return FCS_BYTES;
  return p.fcsLen ?? iface.fcsLen ?? 0;
}

/** Removes a trailing FCS; a 4-byte one is checked (Ethernet CRC-32, sent LSB first) unless
 *  the Ethernet header it covered is gone (SLL). */
function stripFcs(data: Uint8Array, n: number, truncated: boolean, checkable: boolean, notes: string[]): Uint8Array {
  if (n === 0) return data;
  if (truncated) { notes.push(`FCS not stripped: the snaplen cut it off`); return data; }
  if (data.length < ETH_HEADER_BYTES + n) { notes.push(`FCS not stripped: ${data.length} bytes is too short to carry one`); return data; }
  const body = data.subarray(0, data.length - n);
  if (n !== FCS_BYTES || !checkable) { notes.push(`${n}-byte FCS stripped (not checked)`); return body; }
  const carried = new DataView(data.buffer, data.byteOffset + body.length, FCS_BYTES).getUint32(0, true);
  const computed = crc32(body);
  notes.push(carried === computed ? `FCS ${hex(carried, 8)} stripped (good)` : `FCS ${hex(carried, 8)} stripped (bad: computed ${hex(computed, 8)}, a MAC would have dropped this frame)`);
  return body;
}

/** Removes every VLAN tag after the source MAC (QinQ: outer then inner). */
function stripVlanTags(data: Uint8Array, notes: string[]): Uint8Array {
  let out = data;
  while (out.length >= ETH_HEADER_BYTES + VLAN_TAG_BYTES && VLAN_TAGS.has(readU16(out, 12))) {
    const kind = VLAN_TAGS.get(readU16(out, 12))!, tci = readU16(out, 14);
    notes.push(`${kind} tag stripped (VID ${tci & 0xfff}${tci >> 13 ? `, PCP ${tci >> 13}` : ''})`);
    const next = new Uint8Array(out.length - VLAN_TAG_BYTES);
    next.set(out.subarray(0, 12));
    next.set(out.subarray(12 + VLAN_TAG_BYTES), 12);
    out = next;
  }
  return out;
}

/** The frame to feed for one captured packet, and the notes that say how it was made. */
export function cleanFrame(p: CapturedPacket, iface: CaptureInterface, o: CleanupOptions): InputFrame {
  const notes: string[] = [];
  const truncated = p.data.length < p.originalLength;
  if (truncated) notes.push(`truncated: ${p.data.length} of ${p.originalLength} bytes captured, fed as captured`);
  const sll = iface.linktype === LINKTYPE_LINUX_SLL || iface.linktype === LINKTYPE_LINUX_SLL2;
  let data = sll ? rebuildEthernet(p.data, iface.linktype, o.nicMac, notes) : p.data;
  data = stripVlanTags(stripFcs(data, fcsBytes(p, iface, o), truncated, !sll, notes), notes);
  return { data, capturedLength: p.data.length, truncated, notes };
}

/** Every packet of a capture, cleaned up, in capture order. */
export function cleanCapture(cap: CaptureFile, o: CleanupOptions): InputFrame[] {
  return cap.packets.map(p => cleanFrame(p, cap.interfaces[p.iface]!, o));
}
