// Compile-time checks of DutOf<IO>: `tsc -p tsconfig.json` fails if typing regresses
// (each @ts-expect-error must see an error). Never executed.

import { runTest, typedDesign } from '../../core/index.ts';
import { counterSources, type CounterIO } from './fixtures/counter.ts';

export async function typeChecks(): Promise<void> {
  await runTest(typedDesign<CounterIO>(counterSources()), async (dut, tb) => {
    dut.en.value = 1;                          // narrow input: number
    dut.add.a.value = 1n << 99n;               // wide input: bigint
    dut.s_in.value = -5;                       // signed
    dut.hdr.value = { kind: 1, len: 3 };       // struct
    dut.bytes.value = [1, 2, 3, 4];            // vec
    const c: number = dut.count.value;         // narrow output reads as number
    const s: bigint = dut.add.sum.value;       // wide output reads as bigint
    const h: { kind: number; len: number } = dut.hdr_out.value;
    await dut.clk.rising();
    await tb.clockCycles(c + Number(s) + h.len);

    // @ts-expect-error misspelt port
    dut.cnt.value;
    // @ts-expect-error writing an output
    dut.count.value = 3;
    // @ts-expect-error a wide port takes a bigint, not a string
    dut.add.a.value = '5';
    // @ts-expect-error a narrow port's value is a number, not a bigint
    dut.en.value = 1n;
    // @ts-expect-error the clock is not a value port
    dut.clk.value = 1;
    // @ts-expect-error missing struct field
    dut.hdr.value = { kind: 1 };
  });
}
