// Generates the C++ side of the bridge from a manifest: a Node-API addon that owns one
// Verilated model and copies ports between it and a word buffer created in JS.
//
// Semantics of the native calls (the scheduler in tb/core relies on them):
//  - The buffer is read (inputs) once at the start of every call and written (outputs)
//    once at its end. During `step(n)` the inputs therefore stay constant for all n cycles;
//    that is what lets the testbench batch cycles when no coroutine needs to look.
//  - One cycle = falling edge (clk=0, eval) then rising edge (clk=1, eval). Inputs written
//    by JS after a rising edge are applied at the next falling edge, so waves show them
//    changing mid-cycle and the flops sample them on the following rising edge.
//  - Time is real time: rising edge k is at k * period, its falling edge half a period
//    later, in the design's time precision (1 ps under `timescale 1ns / 1ps`). The period
//    defaults to 4 ns (250 MHz) and is set per model (`setPeriod`, in precision units).
//  - `$stop`, `$fatal`, `$finish` and Verilator's internal fatal errors are trapped by
//    the VL_USER_* hooks below: they record what happened, the step loop stops at the end
//    of that eval, and the call returns a trap code (undefined when all went well).
//    Node is never terminated by the design.

import type { Manifest } from '../gen/emit/manifest.ts';
import { computeLayout, type PortSlot } from './layout.ts';

export type TraceFormat = 'fst' | 'vcd';

/** Trap codes returned by the native step/eval calls. Keep in sync with `hooksSource`. */
export const TrapKind = { stop: 1, fatal: 2, finish: 3 } as const;

/**
 * Replaces Verilator's $stop/$fatal/$finish handlers and its printf. Compiled into every
 * binary that links our shared runtime objects (the addon and the benchmark's C++ main),
 * because the runtime is compiled with VL_USER_* and VL_PRINTF pointing here.
 */
export function hooksSource(): string {
  return String.raw`// nicgen: trap hooks for Verilator's runtime (compiled with -DVL_USER_STOP etc.).
#include "verilated.h"
#include <cstdarg>
#include <cstdio>
#include <string>

struct NicgenTrap {
    int kind = 0;          // 0 none, 1 $stop, 2 fatal, 3 $finish
    std::string file;
    int line = 0;
    std::string message;
};
static NicgenTrap nicgen_trap;
// Tail of everything the design printed, to quote $fatal / $display messages in errors.
static std::string nicgen_output_tail;

static void nicgen_set_trap(int kind, const char* file, int line, const char* msg) {
    if (nicgen_trap.kind) return;  // keep the first one
    nicgen_trap.kind = kind;
    nicgen_trap.file = file ? file : "";
    nicgen_trap.line = line;
    nicgen_trap.message = msg ? msg : "";
}

int nicgen_vl_vprintf(const char* fmt, va_list ap) {
    char small[1024];
    va_list copy;
    va_copy(copy, ap);
    int n = std::vsnprintf(small, sizeof small, fmt, copy);
    va_end(copy);
    std::string text;
    if (n >= 0 && n < (int)sizeof small) {
        text.assign(small, n);
    } else if (n >= 0) {
        text.resize(n + 1);
        std::vsnprintf(&text[0], n + 1, fmt, ap);
        text.resize(n);
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    nicgen_output_tail += text;
    if (nicgen_output_tail.size() > 4096) nicgen_output_tail.erase(0, nicgen_output_tail.size() - 4096);
    return n;
}

int nicgen_vl_printf(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = nicgen_vl_vprintf(fmt, ap);
    va_end(ap);
    return n;
}

void vl_stop(const char* filename, int linenum, const char* /*hier*/) VL_MT_UNSAFE {
    nicgen_set_trap(1, filename, linenum, "$stop");
}
void vl_fatal(const char* filename, int linenum, const char* /*hier*/, const char* msg) VL_MT_UNSAFE {
    nicgen_set_trap(2, filename, linenum, msg);
}
void vl_finish(const char* filename, int linenum, const char* /*hier*/) VL_MT_UNSAFE {
    nicgen_set_trap(3, filename, linenum, "$finish");
}
`;
}

/** Header force-included into every compile so Verilator's VL_PRINTF lands in our hook. */
export function printfHeader(): string {
  return `// nicgen: route Verilator's printf through the trap hooks (see sim/wrapper.ts).
#pragma once
#include <cstdarg>
int nicgen_vl_printf(const char* fmt, ...);
int nicgen_vl_vprintf(const char* fmt, va_list ap);
#define VL_PRINTF nicgen_vl_printf
#define VL_VPRINTF nicgen_vl_vprintf
`;
}

function copyIn(s: PortSlot): string {
  const n = s.port.name;
  if (s.port.width <= 32) return `    t->${n} = b[${s.offset}];`;
  if (s.port.width <= 64) return `    t->${n} = (QData)b[${s.offset}] | ((QData)b[${s.offset + 1}] << 32);`;
  return Array.from({ length: s.words }, (_, i) => `    t->${n}[${i}] = b[${s.offset + i}];`).join('\n');
}

function copyOut(s: PortSlot): string {
  const n = s.port.name;
  if (s.port.width <= 32) return `    b[${s.offset}] = t->${n};`;
  if (s.port.width <= 64) return `    b[${s.offset}] = (uint32_t)t->${n}; b[${s.offset + 1}] = (uint32_t)(t->${n} >> 32);`;
  return Array.from({ length: s.words }, (_, i) => `    b[${s.offset + i}] = t->${n}[${i}];`).join('\n');
}

/**
 * The model-specific part: port copies and the step loop, shared by the addon and the
 * benchmark's plain C++ main so both drive the model the same way.
 */
export function coreSource(manifest: Manifest, trace: TraceFormat): string {
  const layout = computeLayout(manifest);
  const cls = `V${manifest.top}`;
  const clk = layout.clock ? `m->top->${layout.clock.name}` : undefined;
  // Several clocks: the model runs in ticks and each clock follows its schedule (sim/clocks.ts).
  const multi = layout.clocks.length > 1 ? layout.clocks : null;
  const k = multi?.length ?? 0;
  const traceCls = trace === 'fst' ? 'VerilatedFstC' : 'VerilatedVcdC';
  const traceHdr = trace === 'fst' ? 'verilated_fst_c.h' : 'verilated_vcd_c.h';
  return `// Generated by nicgen sim/wrapper.ts for top ${manifest.top}. Do not edit.
#include "${cls}.h"
#include "verilated.h"
#include "${traceHdr}"
#include <cstdint>

static const uint32_t NICGEN_INPUT_WORDS = ${layout.inputWords};
static const uint32_t NICGEN_TOTAL_WORDS = ${layout.totalWords};
typedef ${traceCls} NicgenTrace;

struct NicgenModel {
    VerilatedContext* ctx;
    ${cls}* top;
    NicgenTrace* tfp = nullptr;
    uint32_t* buf;
    uint64_t cycles = 0;
    // Clock period and its half in the context's time precision units (set by JS).
    uint64_t period = 4000;
    uint64_t half = 2000;
    bool dead = false;${multi ? `
    // Clock schedules in ticks (sim/clocks.ts); every clock at period 2 until set. A tick lasts
    // \`period\` time units, as a cycle does with one clock.
    uint32_t clk_period[${k}] = {${multi.map(() => 2).join(', ')}};
    uint32_t clk_high[${k}] = {${multi.map(() => 1).join(', ')}};
    uint32_t clk_phase[${k}] = {${multi.map(() => 0).join(', ')}};` : ''}
};
${multi ? `
static const uint32_t NICGEN_CLOCKS = ${k};

// Clock i's level at the current tick: low until its first rise, then high while
// (tick + phase) mod period < high.
static inline uint8_t nicgen_clock_level(const NicgenModel* m, int i) {
    uint64_t u = m->cycles + m->clk_phase[i];
    return (uint8_t)(u >= m->clk_period[i] && u % m->clk_period[i] < m->clk_high[i]);
}
` : ''}
static inline void nicgen_in(NicgenModel* m) {
    ${cls}* t = m->top; const uint32_t* b = m->buf; (void)t; (void)b;
${layout.inputs.map(copyIn).join('\n')}
}

static inline void nicgen_out(NicgenModel* m) {
    ${cls}* t = m->top; uint32_t* b = m->buf; (void)t; (void)b;
${layout.outputs.map(copyOut).join('\n')}
}

static inline void nicgen_dump(NicgenModel* m, uint64_t time) {
    m->ctx->time(time);
    if (VL_UNLIKELY(m->tfp != nullptr)) m->tfp->dump(time);
}

// One half cycle; level 0 = falling edge, 1 = rising edge. Returns the trap kind.${multi ? `
// Several clocks: level 0 settles the inputs with no clock moving, level 1 is the next tick,
// at which every clock takes its scheduled level.` : ''}
static inline int nicgen_half(NicgenModel* m, int level) {
    ${clk ? `${clk} = level;` : multi ? '' : '(void)level;'}
    if (level) {
        m->cycles++;
        m->ctx->time(m->cycles * m->period);${multi ? multi.map((c, i) => `
        m->top->${c.name} = nicgen_clock_level(m, ${i});`).join('') : ''}
    } else {
        m->ctx->time(m->cycles * m->period + m->half);
    }
    m->top->eval();
    if (VL_UNLIKELY(m->tfp != nullptr)) m->tfp->dump(m->ctx->time());
    return nicgen_trap.kind;
}

static NicgenModel* nicgen_create(uint32_t* buf) {
    NicgenModel* m = new NicgenModel;
    m->ctx = new VerilatedContext;
    m->ctx->traceEverOn(true);
    m->ctx->fatalOnError(false);
    m->top = new ${cls}{m->ctx, "TOP"};
    m->buf = buf;
    nicgen_in(m);
    ${clk ? `${clk} = 0;` : ''}${multi ? multi.map(c => `m->top->${c.name} = 0;`).join(' ') : ''}
    m->top->eval();  // time 0: initial blocks and settle, clock low (the first step's rise is an edge)
    nicgen_out(m);
    return m;
}

// Verilator keeps a per-thread "current context" that its runtime (printing, scope
// tables, destructors) uses; with several models alive it must point at the one in use,
// or deleting a model locks a mutex of an already-deleted context.
static inline void nicgen_enter(NicgenModel* m) {
    Verilated::threadContextp(m->ctx);
}

// n full cycles with the inputs read once; stops early on a trap. Returns the trap kind.
static int nicgen_step(NicgenModel* m, uint64_t n) {
    nicgen_enter(m);
    nicgen_in(m);
    int trap = 0;
    for (uint64_t i = 0; i < n; i++) {
        if ((trap = nicgen_half(m, 0))) break;
        if ((trap = nicgen_half(m, 1))) break;
    }
    nicgen_out(m);
    return trap;
}

static int nicgen_eval(NicgenModel* m) {
    nicgen_enter(m);
    nicgen_in(m);
    m->top->eval();
    nicgen_out(m);
    return nicgen_trap.kind;
}

// The period in time precision units; even, so both half cycles are whole units.
static void nicgen_set_period(NicgenModel* m, uint64_t units) {
    m->period = units;
    m->half = units / 2;
}

static void nicgen_trace_close(NicgenModel* m) {
    if (m->tfp) {
        m->tfp->close();
        delete m->tfp;
        m->tfp = nullptr;
    }
}

// One more dump time, cycles periods on, without an eval: the values hold and the clock stops.
static void nicgen_trace_hold(NicgenModel* m, uint64_t cycles) {
    if (m->tfp) m->tfp->dump(m->ctx->time() + cycles * m->period);
}

static void nicgen_trace_open(NicgenModel* m, const char* path, int depth) {
    nicgen_enter(m);
    nicgen_trace_close(m);
    m->tfp = new NicgenTrace;
    m->top->trace(m->tfp, depth > 0 ? depth : 99);
    m->tfp->open(path);
    m->tfp->dump(m->ctx->time());
}

// Frees the Verilated model (once); the struct stays until the JS object is collected.
static void nicgen_release(NicgenModel* m) {
    if (m->top == nullptr) return;
    nicgen_enter(m);
    nicgen_trace_close(m);
    if (!m->dead) m->top->final();
    delete m->top;
    m->top = nullptr;
    delete m->ctx;
    m->ctx = nullptr;
}

static void nicgen_destroy(NicgenModel* m) {
    nicgen_release(m);
    delete m;
}
`;
}

/** The Node-API entry points over `coreSource`. */
export function addonSource(manifest: Manifest, trace: TraceFormat): string {
  const k = computeLayout(manifest).clocks.length;
  return `${hooksSource()}
${coreSource(manifest, trace)}
#define NAPI_VERSION 8
#include <node_api.h>
#if VM_COVERAGE
#include "verilated_cov.h"
#endif

// Each model gets its own function objects whose data pointer is the model, so a call
// costs one napi_get_cb_info and no unwrapping.
#define NICGEN_ARGS(N) \\
    size_t argc = N; napi_value argv[N > 0 ? N : 1]; void* data = nullptr; \\
    napi_get_cb_info(env, info, &argc, argv, nullptr, &data); \\
    NicgenModel* m = (NicgenModel*)data; (void)argc;

// A call into a model freed by destroy() throws instead of touching freed memory.
#define NICGEN_LIVE     if (VL_UNLIKELY(m->top == nullptr)) { napi_throw_error(env, nullptr, "nicgen: model was disposed"); return nullptr; }

static napi_value nicgen_result(napi_env env, int trap) {
    if (VL_LIKELY(trap == 0)) return nullptr;  // undefined
    napi_value v; napi_create_int32(env, trap, &v); return v;
}

static napi_value js_step(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(1)
    NICGEN_LIVE
    double n = 1; napi_get_value_double(env, argv[0], &n);
    return nicgen_result(env, nicgen_step(m, (uint64_t)n));
}

static napi_value js_half(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(1)
    NICGEN_LIVE
    int32_t level = 0; napi_get_value_int32(env, argv[0], &level);
    nicgen_enter(m);
    nicgen_in(m);
    int trap = nicgen_half(m, level ? 1 : 0);
    nicgen_out(m);
    return nicgen_result(env, trap);
}

static napi_value js_eval(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(0)
    NICGEN_LIVE
    return nicgen_result(env, nicgen_eval(m));
}

static napi_value js_cycle(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(0)
    napi_value v; napi_create_double(env, (double)m->cycles, &v); return v;
}

static napi_value js_set_period(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(1)
    double units = 0; napi_get_value_double(env, argv[0], &units);
    nicgen_set_period(m, (uint64_t)units);
    return nullptr;
}

// The design's time precision as a power of ten (-12 for 1 ps): the unit of dump times.
static napi_value js_time_precision(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(0)
    NICGEN_LIVE
    napi_value v; napi_create_int32(env, m->ctx->timeprecision(), &v); return v;
}

${k > 1 ? `// Sets every clock's schedule: a Uint32Array of (period, high, phase) per clock, in port order.
static napi_value js_clocks(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(1)
    NICGEN_LIVE
    napi_typedarray_type type; size_t length = 0; void* words = nullptr; napi_value ab; size_t off;
    bool is_ta = false;
    napi_is_typedarray(env, argv[0], &is_ta);
    if (is_ta) napi_get_typedarray_info(env, argv[0], &type, &length, &words, &ab, &off);
    if (!is_ta || type != napi_uint32_array || length != 3 * NICGEN_CLOCKS) {
        napi_throw_type_error(env, nullptr, "clocks: expected a Uint32Array of 3 words per clock");
        return nullptr;
    }
    const uint32_t* w = (const uint32_t*)words;
    for (uint32_t i = 0; i < NICGEN_CLOCKS; i++) {
        m->clk_period[i] = w[3 * i];
        m->clk_high[i] = w[3 * i + 1];
        m->clk_phase[i] = w[3 * i + 2];
    }
    return nullptr;
}

` : ''}static napi_value js_trace_open(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(2)
    NICGEN_LIVE
    char path[4096]; size_t len = 0;
    napi_get_value_string_utf8(env, argv[0], path, sizeof path, &len);
    int32_t depth = 0; napi_get_value_int32(env, argv[1], &depth);
    nicgen_trace_open(m, path, depth);
    return nullptr;
}

static napi_value js_trace_hold(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(1)
    NICGEN_LIVE
    double cycles = 0; napi_get_value_double(env, argv[0], &cycles);
    nicgen_trace_hold(m, (uint64_t)cycles);
    return nullptr;
}

static napi_value js_trace_close(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(0)
    nicgen_trace_close(m);
    return nullptr;
}

// Writes Verilator's coverage counters (a coverage build only; false otherwise).
static napi_value js_coverage_write(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(1)
    NICGEN_LIVE
    napi_value ok;
#if VM_COVERAGE
    char path[4096]; size_t len = 0;
    napi_get_value_string_utf8(env, argv[0], path, sizeof path, &len);
    nicgen_enter(m);
    m->ctx->coveragep()->write(path);
    napi_get_boolean(env, true, &ok);
#else
    napi_get_boolean(env, false, &ok);
#endif
    return ok;
}

static napi_value str(napi_env env, const std::string& s) {
    napi_value v; napi_create_string_utf8(env, s.data(), s.size(), &v); return v;
}

// Returns the pending trap (or null) and clears it; the model is dead afterwards.
static napi_value js_trap(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(0)
    napi_value result;
    if (!nicgen_trap.kind) { napi_get_null(env, &result); return result; }
    m->dead = true;
    napi_create_object(env, &result);
    napi_value kind, line;
    napi_create_int32(env, nicgen_trap.kind, &kind);
    napi_create_int32(env, nicgen_trap.line, &line);
    napi_set_named_property(env, result, "kind", kind);
    napi_set_named_property(env, result, "file", str(env, nicgen_trap.file));
    napi_set_named_property(env, result, "line", line);
    napi_set_named_property(env, result, "message", str(env, nicgen_trap.message));
    napi_set_named_property(env, result, "output", str(env, nicgen_output_tail));
    nicgen_trap = NicgenTrap{};
    return result;
}

static napi_value js_destroy(napi_env env, napi_callback_info info) {
    NICGEN_ARGS(0)
    // Closes the trace (a test can release files deterministically) and frees the model now:
    // left to the finalizer, a large model's teardown would land in whatever runs at the next
    // garbage collection (the next test, a timed bench). Nothing may call into it afterwards
    // (Model refuses every call once disposed).
    nicgen_release(m);
    return nullptr;
}

static void finalize_model(napi_env, void* data, void*) {
    nicgen_destroy((NicgenModel*)data);
}

static void add_fn(napi_env env, napi_value obj, const char* name, napi_callback cb, NicgenModel* m) {
    napi_value fn;
    napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, m, &fn);
    napi_set_named_property(env, obj, name, fn);
}

static napi_value js_create(napi_env env, napi_callback_info info) {
    size_t argc = 1; napi_value argv[1];
    napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
    bool is_ta = false;
    napi_is_typedarray(env, argv[0], &is_ta);
    if (!is_ta) { napi_throw_type_error(env, nullptr, "create: expected a Uint32Array"); return nullptr; }
    napi_typedarray_type type; size_t length; void* data; napi_value ab; size_t byte_offset;
    napi_get_typedarray_info(env, argv[0], &type, &length, &data, &ab, &byte_offset);
    if (type != napi_uint32_array || length < NICGEN_TOTAL_WORDS) {
        napi_throw_range_error(env, nullptr, "create: expected a Uint32Array of at least NICGEN_TOTAL_WORDS words");
        return nullptr;
    }
    NicgenModel* m = nicgen_create((uint32_t*)data);
    napi_value obj;
    napi_create_object(env, &obj);
    // Keep the buffer alive as long as the model: it is read through a raw pointer.
    napi_set_named_property(env, obj, "buffer", argv[0]);
    napi_add_finalizer(env, obj, m, finalize_model, nullptr, nullptr);
    add_fn(env, obj, "step", js_step, m);
    add_fn(env, obj, "half", js_half, m);
    add_fn(env, obj, "eval", js_eval, m);
    add_fn(env, obj, "cycle", js_cycle, m);
    add_fn(env, obj, "setPeriod", js_set_period, m);
    add_fn(env, obj, "timePrecision", js_time_precision, m);
    add_fn(env, obj, "traceOpen", js_trace_open, m);
    add_fn(env, obj, "traceClose", js_trace_close, m);
    add_fn(env, obj, "traceHold", js_trace_hold, m);
    add_fn(env, obj, "trap", js_trap, m);${k > 1 ? `
    add_fn(env, obj, "clocks", js_clocks, m);` : ''}
    add_fn(env, obj, "destroy", js_destroy, m);
    add_fn(env, obj, "coverageWrite", js_coverage_write, m);
    return obj;
}

NAPI_MODULE_INIT() {
    napi_value fn, words;
    napi_create_function(env, "create", NAPI_AUTO_LENGTH, js_create, nullptr, &fn);
    napi_set_named_property(env, exports, "create", fn);
    napi_create_uint32(env, NICGEN_TOTAL_WORDS, &words);
    napi_set_named_property(env, exports, "totalWords", words);
    napi_create_uint32(env, NICGEN_INPUT_WORDS, &words);
    napi_set_named_property(env, exports, "inputWords", words);
    napi_value fmt;
    napi_create_string_utf8(env, "${trace}", NAPI_AUTO_LENGTH, &fmt);
    napi_set_named_property(env, exports, "traceFormat", fmt);
    napi_value cov;
    napi_get_boolean(env, VM_COVERAGE ? true : false, &cov);
    napi_set_named_property(env, exports, "coverage", cov);
    return exports;
}
`;
}
