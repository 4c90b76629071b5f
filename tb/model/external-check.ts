// Second opinions from implementations that are not ours: Wireshark's dissector (through tshark)
// decodes every frame of a pcap, and scapy's RoCE layer recomputes each ICRC. Both run as child
// processes on a pcap file, so they check exactly the bytes the NIC sent. A missing tool is an
// error that says how to install it, never a silent skip.

import { spawnSync } from 'node:child_process';

/** tshark or scapy is not installed. */
export class ExternalToolMissingError extends Error {
  override readonly name = 'ExternalToolMissingError';
}

// ---- tshark --------------------------------------------------------------------------------------

/** Expert-info severities (epan/proto.h PI_*). */
export const EXPERT_SEVERITY = { comment: 0x100000, chat: 0x200000, note: 0x400000, warn: 0x600000, error: 0x800000 } as const;

export interface ExpertInfo {
  readonly severity: number;
  readonly group: number;
  readonly message: string;
}

export interface TsharkRow {
  readonly frame: number;
  readonly frameLength: number;
  /** e.g. ['eth', 'ethertype', 'ip', 'udp', 'infiniband', 'data']. */
  readonly protocols: readonly string[];
  readonly ethDst: string | null;
  readonly ethSrc: string | null;
  readonly ipSrc: string | null;
  readonly ipDst: string | null;
  readonly ipLength: number | null;
  readonly ipTtl: number | null;
  readonly ipDscp: number | null;
  readonly ipEcn: number | null;
  readonly ipId: number | null;
  readonly ipDf: boolean | null;
  /** From `-o ip.check_checksum:TRUE`. */
  readonly ipChecksumStatus: 'good' | 'bad' | 'unverified' | null;
  readonly udpSrcPort: number | null;
  readonly udpDstPort: number | null;
  readonly udpLength: number | null;
  readonly opcode: number | null;
  readonly se: boolean | null;
  readonly migReq: boolean | null;
  readonly padCnt: number | null;
  readonly tver: number | null;
  readonly pkey: number | null;
  readonly destQp: number | null;
  readonly ackReq: boolean | null;
  readonly psn: number | null;
  readonly reth: { readonly va: bigint; readonly rkey: number; readonly dmaLen: number } | null;
  readonly aeth: { readonly syndrome: number; readonly msn: number } | null;
  /** The ICRC field as our model writes it (least significant byte first on the wire). Wireshark
   *  shows it but does not check it. */
  readonly icrc: number | null;
  /** Bytes Wireshark handed to the `data` dissector after the transport headers (payload + pad). */
  readonly dataLength: number;
  readonly malformed: boolean;
  readonly expert: readonly ExpertInfo[];
}

/** Fields asked of tshark, in column order. Names checked with `tshark -G fields` (4.0.17). */
export const TSHARK_FIELDS = [
  'frame.number', 'frame.len', 'frame.protocols',
  'eth.dst', 'eth.src',
  'ip.src', 'ip.dst', 'ip.len', 'ip.ttl', 'ip.dsfield.dscp', 'ip.dsfield.ecn', 'ip.id', 'ip.flags.df', 'ip.checksum.status',
  'udp.srcport', 'udp.dstport', 'udp.length',
  'infiniband.bth.opcode', 'infiniband.bth.se', 'infiniband.bth.m', 'infiniband.bth.padcnt', 'infiniband.bth.tver',
  'infiniband.bth.p_key', 'infiniband.bth.destqp', 'infiniband.bth.a', 'infiniband.bth.psn',
  'infiniband.reth.va', 'infiniband.reth.r_key', 'infiniband.reth.dmalen',
  'infiniband.aeth.syndrome', 'infiniband.aeth.msn',
  'infiniband.invariant.crc', 'data.len',
  '_ws.malformed', '_ws.expert.severity', '_ws.expert.group', '_ws.expert.message',
] as const;
type Field = (typeof TSHARK_FIELDS)[number];

/** Heuristic dissectors Wireshark tries on InfiniBand payload (RPC-over-RDMA, iSER, NVMe, SMB
 *  Direct, ...). Test payload sometimes looks like one of them and is then reported as a
 *  malformed upper-layer packet, which says nothing about RoCE (the shared vector good#9, a SEND
 *  ONLY carrying "hello", comes out as malformed RPC-over-RDMA); they are switched off so the
 *  payload is plain `data`. Names as `--disable-heuristic` takes them (libwireshark 4.0).
 *  Not switchable: payload to QP 0 or 1 (the management QPs) is always decoded as a MAD. */
export const PAYLOAD_HEURISTICS = [
  'rpcrdma_infiniband', 'smb_direct_infiniband', 'smcr_infiniband', 'iser_infiniband', 'lnet_ib',
  'sdp_infiniband', 'fc_infiniband', 'eth_over_ib', 'mellanox_eoib', 'nvme_rdma',
] as const;

export interface TsharkOptions {
  /** Default 'tshark' (from PATH). */
  readonly tshark?: string;
  /** Keep Wireshark's payload heuristics on (default off, see PAYLOAD_HEURISTICS). */
  readonly payloadHeuristics?: boolean;
}

const AGGREGATOR = '\u001f'; // joins repeated occurrences of a field; never in our values

const TSHARK_HINT = 'install it with: DEBIAN_FRONTEND=noninteractive apt-get install -y tshark';
const SCAPY_HINT = 'install it with: DEBIAN_FRONTEND=noninteractive apt-get install -y python3-scapy';

function run(cmd: string, args: readonly string[], tool: string, hint: string): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) {
    if ((r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new ExternalToolMissingError(`${tool}: '${cmd}' not found; ${hint}`);
    throw r.error;
  }
  if (r.status !== 0) throw new Error(`${tool} (${cmd} ${args.join(' ')}) exited with ${r.status ?? r.signal}:\n${r.stderr.trim()}`);
  return r.stdout;
}

function num(s: string | undefined): number | null {
  if (s === undefined || s === '') return null;
  const n = Number(s.split(AGGREGATOR)[0]);
  return Number.isFinite(n) ? n : null;
}

/** tshark 4.0 prints booleans as 1/0, later versions as True/False. */
function bool(s: string | undefined): boolean | null {
  if (s === undefined || s === '') return null;
  const v = s.split(AGGREGATOR)[0]!.toLowerCase();
  return v === '1' || v === 'true';
}

function checksumStatus(s: string | undefined): TsharkRow['ipChecksumStatus'] {
  if (s === undefined || s === '') return null;
  const v = s.toLowerCase();
  if (v === '0' || v === 'bad') return 'bad';
  if (v === '1' || v === 'good') return 'good';
  return 'unverified';
}

function byteSwap32(x: number): number {
  return (((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24)) >>> 0;
}

/** Decodes every frame of a pcap with tshark and returns one typed row per frame. */
export function tsharkDecode(pcapPath: string, opts: TsharkOptions = {}): TsharkRow[] {
  const args = ['-r', pcapPath, '-n', '-o', 'ip.check_checksum:TRUE'];
  if (!(opts.payloadHeuristics ?? false)) for (const h of PAYLOAD_HEURISTICS) args.push('--disable-heuristic', h);
  args.push('-T', 'fields', '-E', 'header=n', '-E', 'separator=/t', '-E', 'quote=n', '-E', 'occurrence=a', '-E', `aggregator=${AGGREGATOR}`);
  for (const f of TSHARK_FIELDS) args.push('-e', f);
  const out = run(opts.tshark ?? 'tshark', args, 'tshark', TSHARK_HINT);
  const rows: TsharkRow[] = [];
  for (const line of out.split('\n')) {
    if (line === '') continue;
    const cols = line.split('\t');
    if (cols.length !== TSHARK_FIELDS.length) throw new Error(`tshark printed ${cols.length} columns, expected ${TSHARK_FIELDS.length}: ${line.slice(0, 200)}`);
    const get = (f: Field): string => cols[TSHARK_FIELDS.indexOf(f)]!;
    const str = (f: Field): string | null => (get(f) === '' ? null : get(f));
    const severities = get('_ws.expert.severity').split(AGGREGATOR).filter(Boolean);
    const groups = get('_ws.expert.group').split(AGGREGATOR);
    const messages = get('_ws.expert.message').split(AGGREGATOR);
    const icrc = num(get('infiniband.invariant.crc'));
    const va = get('infiniband.reth.va');
    rows.push({
      frame: num(get('frame.number'))!,
      frameLength: num(get('frame.len'))!,
      protocols: get('frame.protocols').split(':'),
      ethDst: str('eth.dst'), ethSrc: str('eth.src'),
      ipSrc: str('ip.src'), ipDst: str('ip.dst'),
      ipLength: num(get('ip.len')), ipTtl: num(get('ip.ttl')),
      ipDscp: num(get('ip.dsfield.dscp')), ipEcn: num(get('ip.dsfield.ecn')), ipId: num(get('ip.id')),
      ipDf: bool(get('ip.flags.df')),
      ipChecksumStatus: checksumStatus(get('ip.checksum.status')),
      udpSrcPort: num(get('udp.srcport')), udpDstPort: num(get('udp.dstport')), udpLength: num(get('udp.length')),
      opcode: num(get('infiniband.bth.opcode')),
      se: bool(get('infiniband.bth.se')), migReq: bool(get('infiniband.bth.m')),
      padCnt: num(get('infiniband.bth.padcnt')), tver: num(get('infiniband.bth.tver')),
      pkey: num(get('infiniband.bth.p_key')), destQp: num(get('infiniband.bth.destqp')),
      ackReq: bool(get('infiniband.bth.a')), psn: num(get('infiniband.bth.psn')),
      reth: va === '' ? null : { va: BigInt(va.split(AGGREGATOR)[0]!), rkey: num(get('infiniband.reth.r_key'))!, dmaLen: num(get('infiniband.reth.dmalen'))! },
      aeth: get('infiniband.aeth.syndrome') === '' ? null : { syndrome: num(get('infiniband.aeth.syndrome'))!, msn: num(get('infiniband.aeth.msn'))! },
      icrc: icrc === null ? null : byteSwap32(icrc),
      dataLength: num(get('data.len')) ?? 0,
      malformed: get('_ws.malformed') !== '',
      expert: severities.map((s, i) => ({ severity: Number(s), group: Number(groups[i] ?? 0), message: messages[i] ?? '' })),
    });
  }
  return rows;
}

// ---- scapy ---------------------------------------------------------------------------------------

export interface IcrcVerdict {
  readonly frame: number;
  /** not-roce: scapy found no IPv4/UDP 4791/BTH; truncated: the frame ends before the IPv4 total length. */
  readonly status: 'ok' | 'bad' | 'not-roce' | 'truncated';
  /** Wire-order hex of the ICRC the frame carries and the one scapy computes. */
  readonly carried?: string;
  readonly computed?: string;
  /** scapy's own reading of the BTH, a second decoder to compare with. */
  readonly opcode?: number;
  readonly destQp?: number;
  readonly psn?: number;
}

// The frame is read with scapy's own pcap reader and dissected by scapy's Ether/IP/UDP/BTH
// layers; BTH.compute_icrc() builds the masked pseudo-packet itself (from the dissected IP layer)
// and returns the ICRC bytes in wire order. The carried ICRC is the last 4 bytes of the IPv4
// packet, cut from the raw frame so Ethernet padding cannot shift it. Exit code 3 = no scapy.
const SCAPY_SCRIPT = `
import sys, json
try:
    from scapy.utils import RawPcapReader
    from scapy.layers.l2 import Ether, Dot1Q
    from scapy.layers.inet import IP, UDP
    from scapy.contrib.roce import BTH
except ImportError as e:
    sys.stderr.write("scapy missing: %s\\n" % e)
    sys.exit(3)
out = []
for n, (data, _meta) in enumerate(RawPcapReader(sys.argv[1]), start=1):
    data = bytes(data)
    pkt = Ether(data)
    if IP not in pkt or UDP not in pkt or BTH not in pkt:
        out.append({"frame": n, "status": "not-roce"})
        continue
    ip = pkt[IP]
    off = 18 if Dot1Q in pkt else 14
    ipbytes = data[off:off + ip.len]
    bth = pkt[BTH]
    v = {"frame": n, "opcode": int(bth.opcode), "destQp": int(bth.dqpn), "psn": int(bth.psn)}
    if len(ipbytes) < ip.len or ip.len < 4:
        v["status"] = "truncated"
    else:
        carried = ipbytes[-4:]
        computed = bth.compute_icrc(b"")
        v.update(status="ok" if carried == computed else "bad", carried=carried.hex(), computed=computed.hex())
    out.append(v)
print(json.dumps(out))
`;

export interface ScapyOptions {
  /** Default /usr/bin/python3: the Debian interpreter python3-scapy installs into (a pyenv or
   *  venv python on PATH usually lacks it). */
  readonly python?: string;
}

/** Recomputes every frame's ICRC with scapy.contrib.roce; one verdict per frame. */
export function scapyCheckIcrc(pcapPath: string, opts: ScapyOptions = {}): IcrcVerdict[] {
  const python = opts.python ?? '/usr/bin/python3';
  const r = spawnSync(python, ['-c', SCAPY_SCRIPT, pcapPath], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) {
    if ((r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new ExternalToolMissingError(`scapy: '${python}' not found; ${SCAPY_HINT}`);
    throw r.error;
  }
  if (r.status === 3) throw new ExternalToolMissingError(`scapy: ${python} cannot import scapy.contrib.roce (${r.stderr.trim()}); ${SCAPY_HINT}`);
  if (r.status !== 0) throw new Error(`scapy ICRC check (${python}) exited with ${r.status ?? r.signal}:\n${r.stderr.trim()}`);
  const lines = r.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as IcrcVerdict[];
}
