// Compile-time checks of the bus models' port typing: `tsc -p tsconfig.json` fails if a
// model starts accepting the wrong end of a bus. Never executed.

import { AxiStreamSink, AxiStreamSource } from '../../bfm/index.ts';
import { runTest } from '../../core/index.ts';
import { design } from '../../design.ts';
import { bfmAxisPass } from './duts.ts';

export async function busTypeChecks(): Promise<void> {
  await runTest(design(bfmAxisPass), async (dut, tb) => {
    new AxiStreamSource(tb, dut.s_axis);   // drives the DUT's input
    new AxiStreamSink(tb, dut.m_axis);     // takes the DUT's output
    // @ts-expect-error a source cannot drive the DUT's output stream
    new AxiStreamSource(tb, dut.m_axis);
    // @ts-expect-error a sink cannot take from the DUT's input stream
    new AxiStreamSink(tb, dut.s_axis);
  });
}

/** stream(T) models: the source drives a stream input, the sink takes a stream output. */
export async function streamTypeChecks(): Promise<void> {
  const { StreamSink, StreamSource } = await import('../../bfm/index.ts');
  const { syncFifo } = await import('../../../gen/lib/fifo.ts');
  await runTest(design(syncFifo), async (dut, tb) => {
    new StreamSource(tb, dut.s);
    new StreamSink(tb, dut.m);
    // @ts-expect-error a source cannot drive the DUT's output stream
    new StreamSource(tb, dut.m);
    // @ts-expect-error a sink cannot take from the DUT's input stream
    new StreamSink(tb, dut.s);
  });
}
