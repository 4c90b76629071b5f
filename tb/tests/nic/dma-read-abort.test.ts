// nic_dma_read's abort (abortQps > 0): the aborted QP's stream ends at a packet boundary (the
// next tlast of its message in the packer), nothing more of that QP's messages inside comes
// out, other QPs' messages and later messages stream whole, every message still gets its
// status. Checked against dma-model.ts's packets. Every test prints its seed. Since issue 11h
// the abort also cuts at the packet boundary the stream waits at (nothing of the next packet
// taken: nic_req_tx's use), inside a message and before a short last packet pending as a flush
// (directed case; it fails with either cut removed: no report). Since issue 11n, with
// abort_open it cuts inside the packet its consumer drops, ending it with an empty tlast beat.

import { describe, expect, it } from 'vitest';
import { emitTop } from '../../../gen/emit/index.ts';
import type { IOOf } from '../../../gen/hdl/index.ts';
import { nicDmaRead, dmaReadDefaults } from '../../../gen/nic/dma-read.ts';
import { XLATE_ACCESS } from '../../../gen/nic/types.ts';
import { AxiStreamSink, type AxiMasterPorts } from '../../bfm/index.ts';
import { envSeed, randomSeed, Rng, runTest, typedDesign } from '../../core/index.ts';
import { HostMemory } from '../../model/host-memory.ts';
import { PageAllocator } from '../../model/page-allocator.ts';
import { dmaMemory, XlateStandIn } from './dma-standins.ts';
import { drain, StructSink, StructSource } from './stage-streams.ts';
import { expectRead, firstDiff, XlateModel, type ReadMessage, type XlateRequest } from './dma-model.ts';

const BURST = dmaReadDefaults.burstBytes;

interface Tagged { msg: ReadMessage; qp: number }

/** Runs `before` (abort of `qp` at cycle `abortAt`), then `after` once the report came. */
async function runAbort(seed: number, before: Tagged[], after: Tagged[], qp: number, abortAt: number, arSlice: boolean): Promise<{ bursts: number; fullBursts: number }> {
  const rng = new Rng(seed);
  const mem = new HostMemory();
  const alloc = new PageAllocator({ base: 0x7f12_3400_0000n, pages: 256, rng: rng.fork() });
  const xm = new XlateModel();
  const r = xm.addRegion({ index: 1, tag: rng.int(0, 255), pd: 1, access: XLATE_ACCESS.LOCAL_WRITE, len: 200 * 1024, vaPage: 0x4_0000n, offset: rng.int(0, 4095) }, alloc, mem, rng);
  const sge = (len: number): ReadMessage => ({ sges: [{ va: r.va + BigInt(rng.int(0, r.len - len)), len, key: r.key, pd: r.pd, access: XLATE_ACCESS.LOCAL_READ }], segLog2: 12 });
  const fill = (ts: Tagged[]): Tagged[] => ts.map(t => (t.msg.sges.length ? t : { ...t, msg: sge(t.msg.segLog2) }));
  const b = fill(before), a = fill(after);
  const all = [...b, ...a];
  const exp = expectRead(all.map(t => t.msg), xm, mem, 8, BURST);
  const design = typedDesign<IOOf<typeof nicDmaRead>>(emitTop(nicDmaRead, { dataWidth: 64, abortQps: 4, arSlice }));
  const where = `[abort qp ${qp} at cycle ${abortAt}${arSlice ? ', arSlice' : ''}, seed ${seed}]`;
  let result = { bursts: 0, fullBursts: exp.bursts.length };
  await runTest(design, async (dut, tb) => {
    await tb.reset(2);
    const d = { cmdTag: dut.cmdTag!, abort: dut.abort!, abortDone: dut.abortDone! };
    const cmd = new StructSource(tb, dut.cmd, 's_cmd', { pause: 0.2 });
    const status = new StructSink(tb, dut.status, 'm_status', { pause: 0.2 });
    new XlateStandIn(tb, dut.xlateReq, dut.xlateResp, (q: XlateRequest) => xm.translate(q), { minLatency: 1, maxLatency: 6, readyP: 0.8, validP: 0.9 });
    const axi = dmaMemory(tb, dut.axi as unknown as AxiMasterPorts, mem, { latency: 6, readyP: 0.8, validP: 0.9 }, 'nic_dma_read.m_axi');
    const out = new AxiStreamSink(tb, dut.data, { pause: 0.1 });
    const abort = new StructSource(tb, d.abort, 's_abort');
    const done = new StructSink(tb, d.abortDone, 'm_abort_done');
    // s_cmd_tag: the tag of the message whose SGE is on offer (one SGE per message here).
    // Set after the edge: `sent` counts an SGE from its handshake's sample phase, before the edge that takes it.
    let tagged = 0;
    tb.everyEdge(() => {}, () => { tagged = cmd.sent.length; const t = all[tagged]; d.cmdTag.value = { qp: t?.qp ?? 0, msg: tagged % 16 }; });
    const push = (ts: Tagged[]): void => ts.forEach(t => t.msg.sges.forEach((g, k) => cmd.push({ ...g, last: k === t.msg.sges.length - 1 ? 1 : 0, segLog2: t.msg.segLog2 })));
    push(b);
    abort.push({ qp }, abortAt);
    await tb.until(() => done.items.length === 1 && cmd.idle, { timeout: 200_000, what: `${where}: the abort report` });
    const abortCycle = abort.sent[0]!.cycle;
    push(a);
    await tb.until(() => status.items.length >= all.length && cmd.idle, { timeout: 400_000, what: `${where}: ${all.length} statuses` });
    await tb.clockCycles(20_000);
    const packets = await drain(out);
    expect(status.items.map(x => x.value.status), `statuses ${where}`).toEqual(exp.statuses);
    const rep = done.items[0]!.value as { none: number; msg: number; offset: number };
    console.log(`${where}: accepted at ${abortCycle}, report ${JSON.stringify(rep)} at ${done.items[0]!.cycle}`);
    // Expected output: every packet, except the aborted QP's after the cut, among the messages
    // the engine had taken by the abort's cycle (one SGE per message: message k is SGE k).
    const covered = (mi: number): boolean => mi < b.length && cmd.sent[mi]!.cycle <= abortCycle && all[mi]!.qp === qp;
    const keep: number[] = [];
    let cutSeen = rep.none === 1;
    let cutBytes = 0;
    exp.packets.forEach((p, i) => {
      const mi = exp.packetMsg[i]!;
      if (!covered(mi)) { keep.push(i); return; }
      if (!cutSeen && mi % 16 !== rep.msg) { keep.push(i); return; }
      if (!cutSeen && mi % 16 === rep.msg) {
        if (cutBytes + p.length <= rep.offset) { cutBytes += p.length; keep.push(i); return; }
        if (cutBytes !== rep.offset) throw new Error(`${where}: offset ${rep.offset} is not a packet boundary`);
        cutSeen = true;
      }
    });
    if (rep.none === 0) expect(cutBytes, `bytes before the cut ${where}`).toBe(rep.offset);
    expect(packets.length, `packets ${where}`).toBe(keep.length);
    let afterAbort = 0;
    keep.forEach((ei, k) => {
      const g = packets[k]!, e = exp.packets[ei]!;
      const dd = firstDiff(g.data, e);
      if (dd >= 0) throw new Error(`packet ${k} (message ${exp.packetMsg[ei]}) ${where}: byte ${dd} differs, lengths ${g.data.length}/${e.length}`);
      const mi = exp.packetMsg[ei]!;
      if (rep.none === 0 && mi < b.length && mi % 16 === rep.msg && g.cycle > abortCycle) afterAbort++;
    });
    // The cut comes at the first packet end after the abort.
    expect(afterAbort, `packets of the cut message ending after the abort ${where}`).toBeLessThanOrEqual(1);
    result = { bursts: axi.ar.length, fullBursts: exp.bursts.length };
  }, { seed, maxCycles: 2_000_000 });
  return result;
}

const M = (qp: number, len: number): Tagged => ({ qp, msg: { sges: [], segLog2: len } });

/** The QP's stream sits at a packet boundary, nothing of the next packet passed on (its
 *  consumer does not take it): the abort cuts right there (as nic_req_tx uses it). Message 0 of
 *  QP 1 is 4096 + 3 bytes from an address 5 bytes into a word, so its last R beat is full and
 *  leaves 3 bytes for a flush beat: the 3-byte last packet. `tailHeld`: the sink stops after
 *  the first packet's tlast, so the abort finds that flush pending (before issue 11h's flush
 *  cut the engine never reported: soak seed 3's hang); else it stops after 2 packets of a
 *  12 KiB message (a boundary inside the message, no flush). */
async function abortAtBoundary(seed: number, tailHeld: boolean, arSlice: boolean): Promise<void> {
  const rng = new Rng(seed);
  const mem = new HostMemory();
  const alloc = new PageAllocator({ base: 0x7f12_3400_0000n, pages: 64, rng: rng.fork() });
  const xm = new XlateModel();
  const r = xm.addRegion({ index: 1, tag: 7, pd: 1, access: XLATE_ACCESS.LOCAL_WRITE, len: 64 * 1024, vaPage: 0x4_0000n, offset: 0 }, alloc, mem, rng);
  const len = tailHeld ? 4096 + 3 : 12288;
  const keepPkts = tailHeld ? 1 : 2;
  const msg: ReadMessage = { sges: [{ va: r.va + 8n * BigInt(rng.int(1, 100)) + 5n, len, key: r.key, pd: r.pd, access: XLATE_ACCESS.LOCAL_READ }], segLog2: 12 };
  const exp = expectRead([msg], xm, mem, 8, BURST);
  const design = typedDesign<IOOf<typeof nicDmaRead>>(emitTop(nicDmaRead, { dataWidth: 64, abortQps: 4, arSlice }));
  const where = `[boundary abort, ${tailHeld ? 'flush pending' : 'inside the message'}${arSlice ? ', arSlice' : ''}, seed ${seed}]`;
  await runTest(design, async (dut, tb) => {
    await tb.reset(2);
    const d = { cmdTag: dut.cmdTag!, abort: dut.abort!, abortDone: dut.abortDone! };
    d.cmdTag.value = { qp: 1, msg: 0 };
    const cmd = new StructSource(tb, dut.cmd, 's_cmd');
    const status = new StructSink(tb, dut.status, 'm_status');
    new XlateStandIn(tb, dut.xlateReq, dut.xlateResp, (q: XlateRequest) => xm.translate(q), { minLatency: 1, maxLatency: 4, readyP: 1, validP: 1 });
    dmaMemory(tb, dut.axi as unknown as AxiMasterPorts, mem, { latency: 4, readyP: 1, validP: 1 }, 'nic_dma_read.m_axi');
    let tlasts = 0;
    let hold = true;
    tb.everyEdge(() => { if (Number(dut.data.tvalid.value) && Number(dut.data.tready.value) && Number(dut.data.tlast!.value)) tlasts++; }, () => {});
    // No AXI-Stream checker: the cut withdraws the beat on offer (the QP's next packet), which
    // its TVALID_STABLE rule forbids; nic_tx_cmd_mux, nic_top's consumer, keeps nothing of it.
    const out = new AxiStreamSink(tb, dut.data, { pause: () => hold && tlasts >= keepPkts, check: false });
    const abort = new StructSource(tb, d.abort, 's_abort');
    const done = new StructSink(tb, d.abortDone, 'm_abort_done');
    cmd.push({ ...msg.sges[0]!, last: 1, segLog2: 12 });
    await tb.until(() => tlasts >= keepPkts, { timeout: 50_000, what: `${where}: ${keepPkts} packet(s) out` });
    await tb.clockCycles(200);
    abort.push({ qp: 1 });
    await tb.until(() => done.items.length === 1, { timeout: 20_000, what: `${where}: the abort report (the stream waits at a packet boundary)` });
    hold = false;
    await tb.until(() => status.items.length === 1, { timeout: 20_000, what: `${where}: the status` });
    await tb.clockCycles(2_000);
    const packets = await drain(out);
    const rep = done.items[0]!.value as { none: number; msg: number; offset: number };
    console.log(`${where}: report ${JSON.stringify(rep)}`);
    expect(rep, `report ${where}`).toEqual({ none: 0, msg: 0, offset: 4096 * keepPkts });
    expect(packets.length, `packets passed on ${where}`).toBe(keepPkts);
    packets.forEach((g, k) => expect(firstDiff(g.data, exp.packets[k]!), `packet ${k} ${where}`).toBe(-1));
  }, { seed, maxCycles: 200_000 });
}

/** abort_open (issue-11n): the consumer (nic_tx_frame_gate) drops the QP's packet in progress
 *  and waits for its tlast. A 12 KiB message of QP 1 streams; the sink stops `beatsIn` beats
 *  into packet 2 (0: right after packet 1; the sink stops a beat late, so one beat of packet 2
 *  is out: the cut before a packet's first beat is exercised end to end, soak seed 12, not
 *  here), abort_open rises and the abort comes: the stream
 *  ends at once with one beat of tlast and no bytes, the report says the bytes passed on (inside
 *  packet 2), and nothing more of the message comes. abort_open falls with that tlast, as
 *  nic_req_tx's pay_out would. */
async function abortOpen(seed: number, beatsIn: number, arSlice: boolean): Promise<void> {
  const rng = new Rng(seed);
  const mem = new HostMemory();
  const alloc = new PageAllocator({ base: 0x7f12_3400_0000n, pages: 64, rng: rng.fork() });
  const xm = new XlateModel();
  const r = xm.addRegion({ index: 1, tag: 7, pd: 1, access: XLATE_ACCESS.LOCAL_WRITE, len: 64 * 1024, vaPage: 0x4_0000n, offset: 0 }, alloc, mem, rng);
  const msg: ReadMessage = { sges: [{ va: r.va + 8n * BigInt(rng.int(1, 100)) + BigInt(rng.int(0, 7)), len: 12288, key: r.key, pd: r.pd, access: XLATE_ACCESS.LOCAL_READ }], segLog2: 12 };
  const exp = expectRead([msg], xm, mem, 8, BURST);
  const design = typedDesign<IOOf<typeof nicDmaRead>>(emitTop(nicDmaRead, { dataWidth: 64, abortQps: 4, arSlice }));
  const where = `[open-packet abort ${beatsIn} beats into packet 2${arSlice ? ', arSlice' : ''}, seed ${seed}]`;
  await runTest(design, async (dut, tb) => {
    await tb.reset(2);
    const d = { cmdTag: dut.cmdTag!, abort: dut.abort!, abortDone: dut.abortDone!, open: dut.abortOpen! };
    d.cmdTag.value = { qp: 1, msg: 0 };
    const cmd = new StructSource(tb, dut.cmd, 's_cmd');
    const status = new StructSink(tb, dut.status, 'm_status');
    new XlateStandIn(tb, dut.xlateReq, dut.xlateResp, (q: XlateRequest) => xm.translate(q), { minLatency: 1, maxLatency: 4, readyP: 1, validP: 1 });
    dmaMemory(tb, dut.axi as unknown as AxiMasterPorts, mem, { latency: 4, readyP: 1, validP: 1 }, 'nic_dma_read.m_axi');
    let tlasts = 0, beats = 0, emptyLast = 0, open = false;
    tb.everyEdge(() => {
      if (!Number(dut.data.tvalid.value) || !Number(dut.data.tready.value)) return;
      beats++;
      if (Number(dut.data.tlast!.value)) {
        tlasts++; beats = 0;
        if (Number(dut.data.tkeep!.value) === 0) emptyLast++;
        if (open) open = false;
      }
    }, () => { d.open.value = open ? 1 : 0; });
    let hold = true;
    const out = new AxiStreamSink(tb, dut.data, { pause: () => hold && tlasts >= 1 && beats >= beatsIn, check: false });
    const abort = new StructSource(tb, d.abort, 's_abort');
    const done = new StructSink(tb, d.abortDone, 'm_abort_done');
    cmd.push({ ...msg.sges[0]!, last: 1, segLog2: 12 });
    await tb.until(() => tlasts >= 1 && beats >= beatsIn, { timeout: 50_000, what: `${where}: packet 1 and ${beatsIn} beats out` });
    await tb.clockCycles(100);
    open = true;
    hold = false;
    abort.push({ qp: 1 });
    await tb.until(() => done.items.length === 1, { timeout: 20_000, what: `${where}: the abort report` });
    await tb.until(() => status.items.length === 1, { timeout: 20_000, what: `${where}: the status` });
    await tb.clockCycles(2_000);
    const packets = await drain(out);
    const rep = done.items[0]!.value as { none: number; msg: number; offset: number };
    console.log(`${where}: report ${JSON.stringify(rep)}`);
    expect(emptyLast, `one empty tlast beat ends the open packet ${where}`).toBe(1);
    expect(open, `abort_open fell with it ${where}`).toBe(false);
    expect(packets.length, `packets passed on ${where}`).toBe(2);
    expect(firstDiff(packets[0]!.data, exp.packets[0]!), `packet 1 ${where}`).toBe(-1);
    // Packet 2: the bytes passed before the cut, a prefix of the real packet 2.
    const got = packets[1]!.data;
    expect(rep, `report ${where}`).toEqual({ none: 0, msg: 0, offset: 4096 + got.length });
    // (The sink stops a beat late: its pause is decided a cycle ahead.)
    expect(got.length >= beatsIn * 8 && got.length <= beatsIn * 8 + 16 && got.length % 8 === 0, `bytes of packet 2 before the cut: ${got.length} ${where}`).toBe(true);
    expect(firstDiff(got, exp.packets[1]!.subarray(0, got.length)), `packet 2's prefix ${where}`).toBe(-1);
  }, { seed, maxCycles: 200_000 });
}

// With the AR straight from the burst cut and from the AR register only (arSlice, as in nic_top).
for (const arSlice of [false, true]) describe(`nic_dma_read abort, dataWidth 64${arSlice ? ', arSlice' : ''}`, () => {
  it('abort_open: the stream ends at once inside the open packet (or before its first beat) with an empty tlast beat', async () => {
    const seed = envSeed() ?? randomSeed();
    console.log(`dma abort open: seed ${seed}`);
    await abortOpen(seed, 37, arSlice);
    await abortOpen(seed, 0, arSlice);
  });
  it('at a packet boundary with nothing of the next packet taken: cut there, inside a message and before a short last packet pending as a flush', async () => {
    const seed = envSeed() ?? randomSeed();
    console.log(`dma abort at a boundary: seed ${seed}`);
    await abortAtBoundary(seed, false, arSlice);
    await abortAtBoundary(seed, true, arSlice);
  });
  it('mid-message abort: cut at a packet boundary, rest dropped, other QP and resend whole', async () => {
    const seed = envSeed() ?? randomSeed();
    console.log(`dma abort: seed ${seed}`);
    const rng = new Rng(seed);
    for (let k = 0; k < 3; k++) {
      const before = [M(1, 65536), M(0, 5000), M(1, 20000), M(2, 3000)];
      const res = await runAbort(seed + k, before, [M(1, 65536), M(0, 4096)], 1, rng.int(200, 4000), arSlice);
      expect(res.bursts, 'bursts: the aborted QP stopped cutting').toBeLessThan(res.fullBursts);
    }
  });
  it('abort of a QP with nothing inside: report none, everything whole', async () => {
    const seed = envSeed() ?? randomSeed();
    console.log(`dma abort none: seed ${seed}`);
    await runAbort(seed, [M(0, 9000), M(2, 300)], [M(3, 100)], 3, 100, arSlice);
  });
});
