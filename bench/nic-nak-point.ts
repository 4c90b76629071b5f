// One point of issue 11's loss bench, quickly (docs/bench.md, docs/nic-reliability.md
// "NAK-path recovery"): the round trip R (lossless, 1 QP), the NAK-path recovery time and
// WRITE goodput on 1 QP at 1 % loss beside the go-back-N bound, at one width.
// Run: node --import tsx bench/nic-nak-point.ts [64|512] [--no-loss] [--qps N] [--timeline] (N QPs at 1 %, default 1;
// --timeline: every frame on the link from the drop to the resend)
import { gbnMessages, measureGbnGoodput, measureRecovery } from './nic-gbn.ts';
const args = process.argv.slice(2);
const qi = args.indexOf('--qps');
const qps = qi >= 0 ? Number(args[qi + 1]) : 1;
// The width is the one argument that is neither a flag nor --qps's value.
const widthArg = args.find((a, i) => !a.startsWith('--') && !(qi >= 0 && i === qi + 1));
const w = Number(widthArg ?? 64);
if (w !== 64 && w !== 512) { console.error(`nic-nak-point: width ${widthArg} is not 64 or 512`); process.exit(2); }
if (!Number.isInteger(qps) || qps < 1) { console.error(`nic-nak-point: --qps needs a whole number >= 1, got ${args[qi + 1]}`); process.exit(2); }
const t0 = Date.now();
const r0 = await measureGbnGoodput(w, 1, 0, gbnMessages(0, 8));
console.log(`R ${r0.roundTrip} T ${r0.packetCycles} goodput ${r0.goodput.toFixed(4)} bound ${r0.bound.bound.toFixed(4)}`);
const rec = await measureRecovery(w, 'nak', r0.roundTrip);
console.log(`recovery ${w}b nak: ${rec.cycles} cycles (${rec.lastBeat} to last beat), goal ${rec.goal}`);
if (args.includes('--timeline')) for (const l of rec.timeline) console.log(`  ${l}`);
if (!args.includes('--no-loss')) {
  const g = await measureGbnGoodput(w, qps, 0.01, gbnMessages(0.01, 8));
  console.log(`${qps} QP 1 %: goodput ${g.goodput.toFixed(4)} bound ${g.bound.bound.toFixed(4)} ratio ${(g.goodput / g.bound.bound).toFixed(3)} frames ${g.framesSent} dropped ${g.framesDropped} R ${g.roundTrip}`);
}
console.log(`${((Date.now() - t0) / 1000).toFixed(0)} s`);
