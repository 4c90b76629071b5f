// Names: every signal, memory and instance in a module needs its own legal Verilog name.

import type { Diagnostic, SourceLoc } from '../hdl/errors.ts';
import { formatLoc } from '../hdl/errors.ts';
import type { ModuleIR } from '../hdl/ir.ts';

const keywords = new Set(`always and assign automatic begin buf bufif0 bufif1 case casex casez cell cmos config deassign default defparam design disable edge else end endcase endconfig endfunction endgenerate endmodule endprimitive endspecify endtable endtask event for force forever fork function generate genvar highz0 highz1 if ifnone incdir include initial inout input instance integer join large liblist library localparam macromodule medium module nand negedge nmos nor noshowcancelled not notif0 notif1 or output parameter pmos posedge primitive pull0 pull1 pulldown pullup pulsestyle_onevent pulsestyle_ondetect rcmos real realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1 scalared showcancelled signed small specify specparam strong0 strong1 supply0 supply1 table task time tran tranif0 tranif1 tri tri0 tri1 triand trior trireg unsigned use uwire vectored wait wand weak0 weak1 while wire wor xnor xor logic bit byte int shortint longint bit void string class interface package program property sequence assert assume cover`.split(/\s+/));

export function checkNames(m: ModuleIR): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Map<string, SourceLoc>();
  const claim = (name: string, loc: SourceLoc, what: string): void => {
    if (keywords.has(name)) {
      out.push({ pass: 'names', message: `${what} '${name}' is a Verilog/SystemVerilog keyword`, hint: `rename it (e.g. '${name}_q')`, loc });
    }
    const first = seen.get(name);
    if (first) {
      out.push({ pass: 'names', message: `${what} '${name}' in module ${m.name} collides with a name first used at ${formatLoc(first)}`, hint: 'give each signal, memory and instance of a module its own name', loc });
    } else seen.set(name, loc);
  };
  for (const s of m.signals) claim(s.name, s.loc, s.kind === 'input' || s.kind === 'output' ? 'port' : s.kind);
  for (const mem of m.memories) {
    claim(mem.name, mem.loc, 'memory');
    mem.readPorts.forEach((p, i) => claim(mem.readPorts.length === 1 ? `${mem.name}_rdata` : `${mem.name}_rdata${i}`, p.loc, 'memory read port'));
  }
  for (const inst of m.instances) claim(inst.name, inst.loc, 'instance');
  return out;
}
