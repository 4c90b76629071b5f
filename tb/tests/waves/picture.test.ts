// Failure pictures: the re-run traces the window of the cause and WaveDrom draws the signals
// that matter. Checked on the drawing itself (the SVG's lanes, labels and marks) for the
// selftest bench through failurePictures() (what reports call) and for a nic_wqe_fetch
// failure (FSM states by name, the watched struct stream split into fields).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { failurePictures } from '../../benches/failure-pictures.ts';
import { failingFetch } from './fetch-failure.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nicgen-picture-'));

/** The lane names of a WaveDrom SVG, in order. */
function lanes(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*class="info"[^>]*><tspan>([^<]*)<\/tspan><\/text>/g)].map(m => m[1]!);
}

describe('failure pictures', () => {
  it('failurePictures(top, test, seed): files, the failing column marked, the watched stream and its handshake', async () => {
    const r = await failurePictures('selftest', 'fail', 3, { dir: tmp });
    expect(r.failed).toBe(true);
    if (!r.failed) return;
    const f = r.files!;
    expect(f.svg).toBe(path.join(tmp, 'selftest-fail-seed3', 'failure.svg'));
    for (const file of [f.svg, f.png!, f.dump, f.savefile!]) expect(fs.statSync(file).size, file).toBeGreaterThan(500);
    expect(r.message).toContain(`picture: ${f.svg} (and ${f.png})`);
    expect(r.message).toContain('replay: ./bin/nicgen sim selftest --test fail --seed 3\n');
    // Every cycle number in the message comes with its dump time, the window's too.
    expect(r.message).toMatch(/waves of cycles (\d+)\.\.(\d+) \((\d+) ns\.\.(\d+) ns\): /);
    const [, from, to, fromNs, toNs] = /waves of cycles (\d+)\.\.(\d+) \((\d+) ns\.\.(\d+) ns\)/.exec(r.message)!.map(Number);
    expect([fromNs, toNs]).toEqual([from! * 4, to! * 4]);
    const svg = fs.readFileSync(f.svg, 'utf8');
    // The watched stream first, then every handshake of the DUT (selftest_skid wraps one skid
    // buffer instance: its own ports' handshakes follow the top's).
    expect(lanes(svg)).toEqual(['clk', 'm_data', 'm_valid', 'm_ready', 's_valid', 's_ready',
      'u_skid_s_valid', 'u_skid_s_ready', 'u_skid_m_valid', 'u_skid_m_ready']);
    // The failing cycle is the last column, with the value the check read (0x2df at cycle 738).
    expect(r.cycle).toBe(738);
    expect(svg, 'the last column is the failing cycle').toMatch(/<text x="\d+" y="-5"><tspan>738<\/tspan><\/text><\/g>/);
    expect(svg).toContain('<tspan>0x2df</tspan>');
    expect(svg).toMatch(/<rect x="\d+" y="-4" width="80" height="\d+" style="fill:#e02020/);
    expect(svg).toContain('red: the failing cycle 738 (2952 ns)');
  });

  it('a nic_wqe_fetch failure: FSM by state name, the watched struct split into fields, AXI handshakes', async () => {
    const f = await failingFetch({ pictures: tmp });
    const svg = fs.readFileSync(f.files!.svg, 'utf8');
    const names = lanes(svg);
    expect(names.slice(0, 4)).toEqual(['clk', 'm_wqe_data', '.qp', '.ringIndex']);
    expect(names).toContain('nic_wqe_fetch.state');
    expect(names).toEqual(expect.arrayContaining(['m_wqe_valid', 'm_wqe_ready', 'm_axi_arvalid', 'm_axi_arready', 'm_axi_rvalid', 'm_axi_rready']));
    // States by name, not numbers.
    expect(svg).toMatch(/<tspan>(IDLE|PLAN|ADDR|DATA)<\/tspan>/);
    expect(f.message).toMatch(/failing on purpose 3 cycles after the 3rd WQE, at cycle \d+ \(\d+ ns\)/);
  });
});
