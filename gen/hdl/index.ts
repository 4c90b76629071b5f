// The nicgen DSL: everything a hardware generator imports.
export { UInt, SInt, Bool, Clock, Struct, Enum, Vec, describeShape, shapeToJson } from './shape.ts';
export type { Shape, UIntShape, SIntShape, ClockShape, StructShape, EnumShape, VecShape, ValueOf, ShapeJson } from './shape.ts';
export { Value, lit, mux, cat, repeat, pack, anyOf, allOf } from './value.ts';
export type { Operand } from './value.ts';
export { Input, Output, Sig, Reg, SignalValue } from './signal.ts';
export { ModuleBuilder, Fsm } from './module.ts';
export { axiClockReset } from './module.ts';
export type { RegOptions, WireOptions, DomainOptions, ClockResetOptions } from './module.ts';
export { MemoryHandle } from './memory.ts';
export { defineModule, defineBlackBox, moduleName } from './define.ts';
export type { ModuleDef, IOOf, ParamsOf, IORecord, InstanceIO, Params } from './define.ts';
export { intIn, powerOfTwoIn, oneOf, bool, ParamError, describeRule } from './params.ts';
export type { ParamRule, ParamSpec, ParamProblem } from './params.ts';
export { DslError, DesignErrors, formatLoc, callerLoc, markInternalDir, markInternalFile } from './errors.ts';
export type { SourceLoc, Diagnostic } from './errors.ts';
