#!/usr/bin/env python3
"""Generates the SystemVerilog package and the C++ header of weft's hardware definition.

hw/spec/*.json is the single source of truth for the hardware parameters, the
micro-architecture constants, the units and their token queues, the command encoding with the
per-opcode field rules the controller enforces, and the register map; this script turns it into
  <out>/weft_pkg.sv              for the RTL (rtl/), and
  <out>/weft/hw/generated.h      for every C++ component (sim/, driver/, tests/),
so that neither side restates a number the other defines. Run by CMake at configure time
and again whenever a spec file changes.
"""
import argparse
import json
import os
import re
import sys

import rules


def load(spec_dir, name):
    with open(os.path.join(spec_dir, name), encoding="utf-8") as f:
        return json.load(f)


def camel(name):
    """snake_case or UPPER_CASE -> UpperCamelCase."""
    return "".join(p[:1].upper() + p[1:].lower() for p in re.split(r"[_\s]+", name) if p)


def as_int(v):
    return int(v, 0) if isinstance(v, str) else int(v)


class SpecError(Exception):
    pass


def check_layout(opname, fields, bits):
    used = {}
    for f in fields:
        if f["width"] < 1 or f["lsb"] + f["width"] > bits:
            raise SpecError(f"{opname}.{f['name']}: bits {f['lsb']}+{f['width']} outside {bits}")
        for b in range(f["lsb"], f["lsb"] + f["width"]):
            if b in used:
                raise SpecError(f"{opname}.{f['name']} overlaps {used[b]} at bit {b}")
            used[b] = f["name"]


def validate_units(isa):
    """Units, their FIFOs and token ports, and the token queues between them."""
    units = {u["name"]: u for u in isa["units"]}
    fifo = [u for u in isa["units"] if u["fifo"]]
    if sorted(u["index"] for u in isa["units"]) != list(range(len(isa["units"]))):
        raise SpecError("unit indexes must be 0 .. units - 1")
    if sorted(u["index"] for u in fifo) != list(range(len(fifo))):
        raise SpecError("units with a command FIFO must come first (indexes 0 .. n - 1)")
    queues = {q["name"]: q for q in isa["token_queues"]}
    if len(queues) != len(isa["token_queues"]):
        raise SpecError("duplicate token queue name")
    producers, consumers = {}, {}
    for u in isa["units"]:
        ports = len(u["waits"]), len(u["signals"])
        if u["fifo"] and ports != (2, 2) or not u["fifo"] and ports != (0, 0):
            raise SpecError(f"unit {u['name']}: a FIFO unit has two wait and two signal ports, the controller none")
        for kind, names, book, side in (("wait", u["waits"], consumers, "to"),
                                        ("signal", u["signals"], producers, "from")):
            for q in names:
                if q not in queues:
                    raise SpecError(f"unit {u['name']}: unknown token queue {q}")
                if queues[q][side] != u["name"]:
                    raise SpecError(f"unit {u['name']} cannot {kind} on {q}")
                if q in book:
                    raise SpecError(f"token queue {q} has two {kind} ports")
                book[q] = u["name"]
    for q in isa["token_queues"]:
        if q["from"] not in units or q["to"] not in units:
            raise SpecError(f"token queue {q['name']}: unknown unit")
        if q["name"] not in producers or q["name"] not in consumers:
            raise SpecError(f"token queue {q['name']} lacks a producer or a consumer port")


def rule_scope(params, micro, isa, fields):
    mem_enum = next(e for e in isa["enums"] if e["name"] == "mem")
    values = {v["name"]: v["value"] for v in mem_enum["values"]}
    memories = [(values[m["name"]], m["row_bytes"], m["rows"]) for m in isa["memories"]]
    return rules.Scope(fields, params["params"], micro["constants"], isa["enums"], memories, mem_enum)


def validate_rules(params, micro, isa):
    """Every check and memory expression translates; each names a known error."""
    errors = {v["name"] for v in next(e for e in isa["enums"] if e["name"] == "error")["values"]}
    mem_names = [v["name"] for v in next(e for e in isa["enums"] if e["name"] == "mem")["values"]]
    if [m["name"] for m in isa["memories"]] != mem_names:
        raise SpecError("memories must list the mem enum's values, in order")
    try:
        for op in isa["opcodes"]:
            scope = rule_scope(params, micro, isa, op["fields"])
            for c in op["checks"]:
                if c["error"] not in errors or c["error"] in ("none", "bad_opcode", "bad_ring"):
                    raise SpecError(f"opcode {op['name']}: a check cannot raise {c['error']}")
                rules.CppTranslator(scope, op["name"]).expr(c["if"])
                rules.SvTranslator(scope, op["name"]).expr(c["if"])
        scope = rule_scope(params, micro, isa, [])
        for c in params.get("constraints", []):
            if not c.get("error"):
                raise SpecError(f"constraint '{c['if']}' needs an error message")
            rules.CppTranslator(scope, "").expr(c["if"])
        for m in isa["memories"]:
            rules.CppTranslator(scope, "").expr(m["row_bytes"])
            rules.CppTranslator(scope, "").expr(m["rows"])
    except rules.RuleError as e:
        raise SpecError(str(e)) from None


# C++ types hwgen emits in weft::hw besides the isa enums: an enumerated parameter may not take their names.
GENERATED_TYPES = {"Param", "ParamSpec", "ParamValueNames", "ParamEnum", "Unit", "Opcode", "Counter", "TokenQueue",
                   "TokenQueueSpec", "UnitTokenPorts", "OpcodeField", "CommandHeader", "RegisterSpec",
                   "NamedConfigText", "CommandWord", "Field"}


def value_ident(v):
    """An enumerated parameter's value name as it ends an identifier: DataflowWS, Dataflow::kWS."""
    return v[:1].upper() + v[1:]


def validate_enum_param(p, isa):
    """An enumerated parameter ("values"): its integer is the index into the names."""
    values = p["values"]
    where = f"parameter {p['name']}"
    if not isinstance(values, list) or not values:
        raise SpecError(f"{where}: 'values' must be a non-empty list of names")
    for v in values:
        if not isinstance(v, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", v):
            raise SpecError(f"{where}: value {v!r} is not a name (a letter, then letters and digits)")
    if len({value_ident(v) for v in values}) != len(values):
        raise SpecError(f"{where}: duplicate value name in {values}")
    if p["min"] != 0 or p["max"] != len(values) - 1:
        raise SpecError(f"{where}: an enumeration has min 0 and max {len(values) - 1} (its values' indexes)")
    if p.get("pow2"):
        raise SpecError(f"{where}: an enumeration cannot be pow2")
    if p["name"] in GENERATED_TYPES or p["name"] in {camel(e["name"]) for e in isa["enums"]}:
        raise SpecError(f"{where}: the name clashes with a generated C++ type")


def enum_values(p):
    """An enumerated parameter's value names, or [] for an integer parameter."""
    return p.get("values", [])


def config_values(params, configs, name, seen=()):
    """Every parameter's integer value in named configuration `name`: the defaults, its base's
    values, then its own (enumerated parameters given by their value names), each checked."""
    texts = dict(configs)
    if name in seen:
        raise SpecError(f"configuration {name}: its bases form a cycle")
    doc = json.loads(texts[name])
    for key in doc:
        if key not in ("name", "doc", "base", "params", "dram_ini"):
            raise SpecError(f"configuration {name}: unknown key {key}")
    if "base" in doc:
        if doc["base"] not in texts:
            raise SpecError(f"configuration {name}: unknown base configuration {doc['base']}")
        values = config_values(params, configs, doc["base"], seen + (name,))
    else:
        values = {p["name"]: p["default"] for p in params["params"]}
    specs = {p["name"]: p for p in params["params"]}
    for k, v in doc.get("params", {}).items():
        if k not in specs:
            raise SpecError(f"configuration {name}: unknown parameter {k}")
        p = specs[k]
        names = enum_values(p)
        if names:
            if not isinstance(v, str) or v not in names:
                raise SpecError(f"configuration {name}: {k} = {json.dumps(v)} is not one of "
                                + ", ".join(json.dumps(n) for n in names))
            v = names.index(v)
        elif not isinstance(v, int) or isinstance(v, bool):
            raise SpecError(f"configuration {name}: {k} must be an integer")
        elif not p["min"] <= v <= p["max"] or p.get("pow2") and v & (v - 1):
            raise SpecError(f"configuration {name}: {k} = {v} is outside [{p['min']}, {p['max']}]"
                            + (" or not a power of two" if p.get("pow2") else ""))
        values[k] = v
    return values


def validate(params, micro, isa, regs):
    validate_units(isa)
    validate_rules(params, micro, isa)
    names = set()
    for p in params["params"]:
        if p["name"] in names:
            raise SpecError(f"duplicate parameter {p['name']}")
        names.add(p["name"])
        if not p["min"] <= p["default"] <= p["max"]:
            raise SpecError(f"parameter {p['name']}: default outside [min, max]")
        if "values" in p:
            validate_enum_param(p, isa)
    enums = {e["name"]: e for e in isa["enums"]}
    for e in isa["enums"]:
        if max(v["value"] for v in e["values"]) >= 1 << e["width"]:
            raise SpecError(f"enum {e['name']}: a value does not fit {e['width']} bits")
    units = {u["name"] for u in isa["units"]}
    values = set()
    for op in isa["opcodes"]:
        if op["value"] in values:
            raise SpecError(f"duplicate opcode value {op['value']}")
        values.add(op["value"])
        if op["unit"] not in units:
            raise SpecError(f"opcode {op['name']}: unknown unit {op['unit']}")
        for f in op["fields"]:
            if "enum" in f and (f["enum"] not in enums or enums[f["enum"]]["width"] != f["width"]):
                raise SpecError(f"{op['name']}.{f['name']}: unknown enum or width mismatch")
        check_layout(op["name"], isa["header"] + op["fields"], isa["command_bits"])
    addrs = {}
    for r in regs["registers"]:
        a = as_int(r["addr"])
        if a in addrs or a % 4:
            raise SpecError(f"register {r['name']}: address {a:#x} reused or unaligned")
        addrs[a] = r["name"]
        if "param" in r and r["param"] not in names:
            raise SpecError(f"register {r['name']}: unknown parameter {r['param']}")
    base = as_int(regs["counters"]["base"])
    top = base + 8 * len(regs["counters"]["list"])
    if top > 0x1000 or any(base <= a < top for a in addrs):
        raise SpecError("counter block overlaps registers or leaves the 4 KiB register space")


# ----------------------------------------------------------------------------- SystemVerilog

def sv_units(isa, w):
    """Unit indexes, the token queues and each unit's four token ports."""
    qindex = {q["name"]: i for i, q in enumerate(isa["token_queues"])}
    fifo = [u for u in isa["units"] if u["fifo"]]
    w("  // Units (isa.json units): the first NumFifoUnits have a command FIFO each.")
    w(f"  localparam int unsigned NumUnits = {len(isa['units'])};")
    w(f"  localparam int unsigned NumFifoUnits = {len(fifo)};")
    for u in isa["units"]:
        w(f"  localparam int unsigned Unit{camel(u['name'])} = {u['index']};")
    w("")
    w("  // Token queues (isa.json token_queues) and the queue behind each unit's header bits.")
    w(f"  localparam int unsigned NumTokQ = {len(isa['token_queues'])};")
    for q in isa["token_queues"]:
        w(f"  localparam int unsigned Tok{camel(q['name'])} = {qindex[q['name']]};")
    for kind, key in (("wait", "waits"), ("signal", "signals")):
        w(f"  // The queue a FIFO unit's {kind}0 / {kind}1 header bit (port) refers to.")
        w("  /* verilator lint_off UNUSEDSIGNAL */")
        w(f"  function automatic int unsigned tok_{kind}_queue(int unsigned unit, int unsigned port);")
        w("    unique case ({unit[2:0], port[0]})")
        for u in fifo:
            for port, q in enumerate(u[key]):
                w(f"      {{3'd{u['index']}, 1'b{port}}}: tok_{kind}_queue = Tok{camel(q)};  // {u['name']}")
        w(f"      default: tok_{kind}_queue = 0;")
        w("    endcase")
        w("  endfunction")
        w("  /* verilator lint_on UNUSEDSIGNAL */")
    w("")
    w("  // The unit that executes each opcode.")
    w("  function automatic int unsigned unit_of(logic [3:0] op);")
    w("    unique case (op)")
    for op in isa["opcodes"]:
        unit = next(u for u in isa["units"] if u["name"] == op["unit"])
        w(f"      4'd{op['value']}: unit_of = Unit{camel(unit['name'])};")
    w("      default: unit_of = UnitControl;")
    w("    endcase")
    w("  endfunction")
    w("")


def sv_checks(params, micro, isa, w):
    """check_command(): the controller's decode-time validation, from the opcodes' checks."""
    rtl = [p["name"] for p in params["params"] if p["rtl"]]
    order = ["bad_value", "bad_length", "bad_address"]
    w("  // The error the controller raises for a command (isa.json checks; first of bad_opcode,")
    w("  // bad_value, bad_length, bad_address), given the RTL parameters of weft_top.")
    w("  /* verilator lint_off UNUSEDSIGNAL */")
    w("  function automatic error_e check_command(cmd_t c, " +
      ", ".join(f"int unsigned {n}" for n in rtl) + ");")
    w("    unique case (c[HdrOpcodeLsb +: HdrOpcodeW])")
    for op in isa["opcodes"]:
        w(f"      Op{camel(op['name'])}: begin")
        sv = rules.SvTranslator(rule_scope(params, micro, isa, op["fields"]), op["name"])
        first = True
        for error in order:
            for c in op["checks"]:
                if c["error"] == error:
                    w(f"        {'if' if first else 'else if'} ({sv.expr(c['if'])} != 64'sd0) "
                      f"check_command = Error{camel(error)};  // {c['if']}")
                    first = False
        w(f"        {'' if first else 'else '}check_command = ErrorNone;")
        w("      end")
    w("      default: check_command = ErrorBadOpcode;")
    w("    endcase")
    w("  endfunction")
    w("  /* verilator lint_on UNUSEDSIGNAL */")
    w("")


def sv_package(params, micro, isa, regs):
    out = []
    w = out.append
    w("// Generated by hw/gen/hwgen.py from hw/spec/*.json. Do not edit.")
    w("// weft_pkg: parameters, command encoding and register map of the weft accelerator.")
    w("// A package defines more than any one module uses.")
    w("/* verilator lint_off UNUSEDPARAM */")
    w("package weft_pkg;")
    w("")
    w("  // Parameter defaults (the weft16 configuration); weft_top takes them as parameters. An")
    w("  // enumerated parameter's value is the index of its name (<Param><Value> below).")
    for p in params["params"]:
        if p["rtl"]:
            w(f"  localparam int unsigned Default{p['name']} = {p['default']};")
            for i, v in enumerate(enum_values(p)):
                w(f"  localparam int unsigned {p['name']}{value_ident(v)} = {i};")
    w("")
    w("  // Micro-architecture constants (micro.json): fixed in the RTL, read by the models.")
    for c in micro["constants"]:
        w(f"  localparam int unsigned {c['name']} = {c['value']};")
    w("")
    w(f"  localparam int unsigned CmdBits = {isa['command_bits']};")
    w(f"  localparam int unsigned CmdBytes = {isa['command_bits'] // 8};")
    w("  typedef logic [CmdBits-1:0] cmd_t;")
    w("")
    w("  typedef enum logic [3:0] {")
    ops = isa["opcodes"]
    for i, op in enumerate(ops):
        sep = "," if i + 1 < len(ops) else ""
        w(f"    Op{camel(op['name'])} = 4'd{op['value']}{sep}")
    w("  } opcode_e;")
    w("")
    for e in isa["enums"]:
        width = e["width"]
        w(f"  // {e['doc']}")
        w(f"  typedef enum logic [{width - 1}:0] {{")
        for i, v in enumerate(e["values"]):
            sep = "," if i + 1 < len(e["values"]) else ""
            w(f"    {camel(e['name'])}{camel(v['name'])} = {width}'d{v['value']}{sep}")
        w(f"  }} {e['name']}_e;")
        w("")
    w("  // Field positions (lsb, width) within a command.")
    for f in isa["header"]:
        w(f"  localparam int unsigned Hdr{camel(f['name'])}Lsb = {f['lsb']};")
        w(f"  localparam int unsigned Hdr{camel(f['name'])}W = {f['width']};")
    for op in ops:
        for f in op["fields"]:
            n = f"{camel(op['name'])}{camel(f['name'])}"
            w(f"  localparam int unsigned {n}Lsb = {f['lsb']};")
            w(f"  localparam int unsigned {n}W = {f['width']};")
    w("")
    w("  // Commands as packed structs (most significant field first); reserved bits are rsvd*.")
    for op in ops:
        fields = sorted(isa["header"] + op["fields"], key=lambda f: f["lsb"], reverse=True)
        members = []
        top = isa["command_bits"]
        for f in fields:
            msb = f["lsb"] + f["width"]
            if msb < top:
                members.append(f"    logic [{top - msb - 1}:0] rsvd{msb};")
            if f["name"] == "opcode":
                members.append("    opcode_e opcode;")
            elif "enum" in f:
                members.append(f"    {f['enum']}_e {f['name']};")
            else:
                members.append(f"    logic [{f['width'] - 1}:0] {f['name']};")
            top = f["lsb"]
        w("  typedef struct packed {")
        out.extend(members)
        w(f"  }} {op['name']}_cmd_t;")
        w("")
    w("  // Register map (byte addresses on the 12-bit register bus).")
    w(f"  localparam logic [31:0] IdValue = 32'h{as_int(regs['id_value']):08x};")
    v = regs["version"]
    w(f"  localparam logic [31:0] VersionValue = 32'h{(v['major'] << 16) | v['minor']:08x};")
    for r in regs["registers"]:
        w(f"  localparam logic [11:0] Reg{camel(r['name'])} = 12'h{as_int(r['addr']):03x};")
        for f in r.get("fields", []):
            w(f"  localparam int unsigned Reg{camel(r['name'])}{camel(f['name'])}Lsb = {f['lsb']};")
    counters = regs["counters"]["list"]
    w(f"  localparam logic [11:0] RegCounterBase = 12'h{as_int(regs['counters']['base']):03x};")
    w(f"  localparam int unsigned NumCounters = {len(counters)};")
    w("  typedef enum int unsigned {")
    for i, c in enumerate(counters):
        sep = "," if i + 1 < len(counters) else ""
        w(f"    Cnt{camel(c['name'])} = {i}{sep}")
    w("  } counter_e;")
    w("")
    sv_units(isa, w)
    sv_checks(params, micro, isa, w)
    w("endpackage")
    w("/* verilator lint_on UNUSEDPARAM */")
    check_sv_names(out)
    return "\n".join(out) + "\n"


def check_sv_names(lines):
    """No identifier of the package is declared twice (an enumerated parameter's <Param><Value>
    meeting another constant, say)."""
    seen = set()
    for line in lines:
        m = re.match(r"\s*localparam\s+(?:int unsigned|logic\s*\[[^]]*\])\s+(\w+)\s*=", line) or \
            re.match(r"\s*(\w+)\s*=\s*\d+'d\d+,?\s*$", line) or re.match(r"\s*(Cnt\w+)\s*=\s*\d+,?\s*$", line)
        if m:
            if m.group(1) in seen:
                raise SpecError(f"weft_pkg: {m.group(1)} is declared twice")
            seen.add(m.group(1))


# ----------------------------------------------------------------------------- C++

def cpp_string(s):
    return json.dumps(s)


def cpp_units(isa, w):
    """Units, token queues and each unit's token ports, as constexpr tables."""
    fifo = [u for u in isa["units"] if u["fifo"]]
    qindex = {q["name"]: i for i, q in enumerate(isa["token_queues"])}
    w(f"inline constexpr size_t kNumUnits = {len(isa['units'])};")
    w(f"// Units 0 .. kNumFifoUnits - 1 have a command FIFO; the rest is the controller itself.")
    w(f"inline constexpr size_t kNumFifoUnits = {len(fifo)};")
    w("constexpr std::string_view unitName(Unit u) {")
    w("  switch (u) {")
    for u in isa["units"]:
        w(f"    case Unit::k{camel(u['name'])}: return {cpp_string(u['name'])};")
    w("  }")
    w('  return "unknown";')
    w("}")
    w("")
    w("// " + isa["token_queues_doc"])
    w("enum class TokenQueue : uint8_t {")
    for q in isa["token_queues"]:
        w(f"  k{camel(q['name'])} = {qindex[q['name']]},")
    w("};")
    w(f"inline constexpr size_t kNumTokenQueues = {len(isa['token_queues'])};")
    w("struct TokenQueueSpec {")
    w("  std::string_view name;")
    w("  Unit from, to;")
    w("};")
    w(f"inline constexpr std::array<TokenQueueSpec, {len(isa['token_queues'])}> kTokenQueues{{{{")
    for q in isa["token_queues"]:
        w(f"    {{{cpp_string(q['name'].replace('_to_', '->'))}, Unit::k{camel(q['from'])}, Unit::k{camel(q['to'])}}},")
    w("}};")
    w("")
    w("// The token queue behind each header bit of a unit's commands (-1: none): wait0/wait1 pop,")
    w("// signal0/signal1 push.")
    w("struct UnitTokenPorts {")
    w("  int8_t waits[2];")
    w("  int8_t signals[2];")
    w("};")
    w(f"inline constexpr std::array<UnitTokenPorts, {len(isa['units'])}> kUnitTokenPorts{{{{")
    for u in isa["units"]:
        ws = [qindex[q] for q in u["waits"]] + [-1] * (2 - len(u["waits"]))
        ss = [qindex[q] for q in u["signals"]] + [-1] * (2 - len(u["signals"]))
        w(f"    {{{{{ws[0]}, {ws[1]}}}, {{{ss[0]}, {ss[1]}}}}},  // {u['name']}")
    w("}};")
    w("// The queue carrying tokens from unit `from` to unit `to`, or -1 when there is none.")
    w("constexpr int tokenQueueBetween(Unit from, Unit to) {")
    w("  for (size_t q = 0; q < kTokenQueues.size(); ++q) {")
    w("    if (kTokenQueues[q].from == from && kTokenQueues[q].to == to) return static_cast<int>(q);")
    w("  }")
    w("  return -1;")
    w("}")
    w("")


def cpp_checks(params, micro, isa, w):
    """Memory geometry and checkCommand(): the controller's validation, for the C++ models."""
    scope = rule_scope(params, micro, isa, [])
    cpp = rules.CppTranslator(scope, "")
    w("// Geometry of the memories a LOAD fills (isa.json memories), for a configuration `cfg`")
    w("// (anything with get(Param)).")
    for fn, key in (("memRowBytes", "row_bytes"), ("memRows", "rows")):
        w("template <typename Config>")
        w(f"constexpr int64_t {fn}(Mem m, const Config& cfg) {{")
        w("  switch (m) {")
        for m in isa["memories"]:
            w(f"    case Mem::k{camel(m['name'])}: return {cpp.expr(m[key])};")
        w("  }")
        w("  return 0;")
        w("}")
    w("")
    w("// The first combination of parameter values params.json's constraints forbid that `cfg` has:")
    w("// its error message; empty when there is none.")
    w("template <typename Config>")
    w("constexpr std::string_view violatedConstraint(const Config& cfg) {")
    w("  (void)cfg;")
    for c in params.get("constraints", []):
        w(f"  if ({cpp.expr(c['if'])} != 0) return {cpp_string(c['error'])};  // {c['if']}")
    w("  return {};")
    w("}")
    w("")
    w("// The error the controller raises for `c` before executing it (isa.json checks; the first")
    w("// of bad_opcode, bad_value, bad_length, bad_address), or Error::kNone.")
    w("template <typename Config>")
    w("Error checkCommand(const CommandWord& c, const Config& cfg) {")
    w("  (void)cfg;")
    w("  switch (c.get(field::kOpcode)) {")
    for op in isa["opcodes"]:
        w(f"    case {op['value']}:  // {op['name']}")
        tr = rules.CppTranslator(rule_scope(params, micro, isa, op["fields"]), op["name"])
        for error in ("bad_value", "bad_length", "bad_address"):
            for chk in op["checks"]:
                if chk["error"] == error:
                    w(f"      if ({tr.expr(chk['if'])} != 0) return Error::k{camel(error)};  // {chk['if']}")
        w("      return Error::kNone;")
    w("  }")
    w("  return Error::kBadOpcode;")
    w("}")
    w("")


def cpp_header(params, micro, isa, regs, configs):
    out = []
    w = out.append
    w("// Generated by hw/gen/hwgen.py from hw/spec/*.json. Do not edit.")
    w("#pragma once")
    w("")
    w("#include <array>")
    w("#include <cstdint>")
    w("#include <string_view>")
    w("")
    w('#include "weft/hw/command_word.h"')
    w("")
    w("namespace weft::hw {")
    w("")
    w("// The value names of an enumerated parameter (params.json \"values\"): the parameter's integer")
    w("// is the index of its name. Empty for an integer parameter.")
    w("struct ParamValueNames {")
    w("  const std::string_view* names = nullptr;")
    w("  size_t count = 0;")
    w("  constexpr size_t size() const { return count; }")
    w("  constexpr bool empty() const { return count == 0; }")
    w("  constexpr std::string_view operator[](size_t i) const { return names[i]; }")
    w("  constexpr const std::string_view* begin() const { return names; }")
    w("  constexpr const std::string_view* end() const { return names + count; }")
    w("};")
    ps = params["params"]
    enums = [p for p in ps if enum_values(p)]
    if enums:
        w("namespace param_values {")
        for p in enums:
            vs = enum_values(p)
            w(f"inline constexpr std::array<std::string_view, {len(vs)}> k{p['name']}{{{{"
              + ", ".join(cpp_string(v) for v in vs) + "}};")
        w("}  // namespace param_values")
    w("")
    w("struct ParamSpec {")
    w("  std::string_view name;")
    w("  bool rtl;  // a SystemVerilog parameter: part of the RTL build key")
    w("  int64_t defaultValue, minValue, maxValue;")
    w("  bool powerOfTwo;")
    w("  ParamValueNames values;  // an enumeration's value names; empty for an integer parameter")
    w("  std::string_view doc;")
    w("  constexpr bool isEnum() const { return !values.empty(); }")
    w("};")
    w(f"inline constexpr std::array<ParamSpec, {len(ps)}> kParamSpecs{{{{")
    for p in ps:
        vs = enum_values(p)
        names = f"{{param_values::k{p['name']}.data(), {len(vs)}}}" if vs else "{}"
        w(f"    {{{cpp_string(p['name'])}, {str(p['rtl']).lower()}, {p['default']}, {p['min']}, "
          f"{p['max']}, {str(p.get('pow2', False)).lower()}, {names}, {cpp_string(p['doc'])}}},")
    w("}};")
    w("")
    w("// Index of each parameter in kParamSpecs.")
    w("enum class Param : uint8_t {")
    for i, p in enumerate(ps):
        w(f"  k{p['name']} = {i},")
    w("};")
    w(f"inline constexpr size_t kNumParams = {len(ps)};")
    w("")
    w("// The values of each enumerated parameter: HwConfig::get(Param::kX) is a static_cast away")
    w("// (HwConfig::getEnum<Param::kX>()); ParamEnum<Param::kX>::type names the enumeration.")
    w("template <Param P>")
    w("struct ParamEnum;")
    for p in enums:
        n = p["name"]
        w(f"enum class {n} : int64_t {{")
        for i, v in enumerate(enum_values(p)):
            w(f"  k{value_ident(v)} = {i},")
        w("};")
        w(f"constexpr std::string_view toString({n} v) {{")
        w(f"  return static_cast<size_t>(v) < param_values::k{n}.size() ? param_values::k{n}[static_cast<size_t>(v)]"
          ' : "unknown";')
        w("}")
        w("template <>")
        w(f"struct ParamEnum<Param::k{n}> {{")
        w(f"  using type = {n};")
        w("};")
    w("")
    w("// Micro-architecture constants (micro.json): fixed in the RTL, read by the models.")
    w("namespace micro {")
    for c in micro["constants"]:
        w(f"inline constexpr uint32_t k{c['name']} = {c['value']};  // {c['doc']}")
    w("}  // namespace micro")
    w("")
    w(f"inline constexpr unsigned kCommandBits = {isa['command_bits']};")
    w(f"inline constexpr unsigned kCommandBytes = {isa['command_bits'] // 8};")
    w("")
    w("enum class Unit : uint8_t {")
    for u in isa["units"]:
        w(f"  k{camel(u['name'])} = {u['index']},  // {u['doc']}")
    w("};")
    w("")
    w("enum class Opcode : uint8_t {")
    for op in isa["opcodes"]:
        w(f"  k{camel(op['name'])} = {op['value']},")
    w("};")
    w("")
    w("constexpr std::string_view opcodeName(Opcode op) {")
    w("  switch (op) {")
    for op in isa["opcodes"]:
        w(f"    case Opcode::k{camel(op['name'])}: return {cpp_string(op['name'])};")
    w("  }")
    w('  return "unknown";')
    w("}")
    w("")
    w("constexpr bool isOpcode(uint64_t value) {")
    vals = " || ".join(f"value == {op['value']}" for op in isa["opcodes"])
    w(f"  return {vals};")
    w("}")
    w("")
    w("constexpr Unit unitOf(Opcode op) {")
    w("  switch (op) {")
    for op in isa["opcodes"]:
        w(f"    case Opcode::k{camel(op['name'])}: return Unit::k{camel(op['unit'])};")
    w("  }")
    w("  return Unit::kControl;")
    w("}")
    w("")
    cpp_units(isa, w)
    for e in isa["enums"]:
        w(f"// {e['doc']}")
        w(f"enum class {camel(e['name'])} : uint8_t {{")
        for v in e["values"]:
            w(f"  k{camel(v['name'])} = {v['value']},  // {v['doc']}")
        w("};")
        w(f"constexpr std::string_view toString({camel(e['name'])} v) {{")
        w("  switch (v) {")
        for v in e["values"]:
            w(f"    case {camel(e['name'])}::k{camel(v['name'])}: return {cpp_string(v['name'])};")
        w("  }")
        w('  return "unknown";')
        w("}")
        # Per-value integer attributes besides name/value/doc (store_mode's column_bytes): one
        # constexpr lookup each, camel-cased: columnBytes(StoreMode).
        attrs = sorted({k for v in e["values"] for k in v if k not in ("name", "value", "doc")})
        for a in attrs:
            if any(not isinstance(v.get(a), int) for v in e["values"]):
                raise SpecError(f"enum {e['name']}: every value needs an integer {a}")
            w(f"constexpr uint32_t {lower_camel(a)}({camel(e['name'])} v) {{")
            w("  switch (v) {")
            for v in e["values"]:
                w(f"    case {camel(e['name'])}::k{camel(v['name'])}: return {v[a]};")
            w("  }")
            w("  return 0;")
            w("}")
        w("")
    w("// Field positions within a command.")
    w("namespace field {")
    for f in isa["header"]:
        w(f"inline constexpr Field k{camel(f['name'])}{{{f['lsb']}, {f['width']}, false}};")
    for op in isa["opcodes"]:
        if not op["fields"]:
            continue
        w(f"namespace {op['name']} {{")
        for f in op["fields"]:
            w(f"inline constexpr Field k{camel(f['name'])}{{{f['lsb']}, {f['width']}, "
              f"{str(f.get('signed', False)).lower()}}};")
        w(f"}}  // namespace {op['name']}")
    w("}  // namespace field")
    w("")
    w("// Every field of every opcode (the header excluded), for tools that walk the encoding.")
    w("struct OpcodeField {")
    w("  Opcode op;")
    w("  std::string_view name;")
    w("  Field field;")
    w("};")
    allf = [(op, f) for op in isa["opcodes"] for f in op["fields"]]
    w(f"inline constexpr std::array<OpcodeField, {len(allf)}> kOpcodeFields{{{{")
    for op, f in allf:
        w(f"    {{Opcode::k{camel(op['name'])}, {cpp_string(f['name'])}, field::{op['name']}::k{camel(f['name'])}}},")
    w("}};")
    w("")
    w("// The header every command starts with.")
    w("struct CommandHeader {")
    for f in isa["header"][1:]:
        w(f"  bool {lower_camel(f['name'])} = false;")
    w("};")
    w("")
    for op in isa["opcodes"]:
        name = camel(op["name"]) + "Cmd"
        w(f"// {op['doc']}")
        w(f"struct {name} {{")
        w(f"  static constexpr Opcode kOpcode = Opcode::k{camel(op['name'])};")
        w("  CommandHeader header;")
        for f in op["fields"]:
            if "enum" in f:
                ctype = camel(f["enum"])
                w(f"  {ctype} {lower_camel(f['name'])} = {ctype}{{}};")
            elif f["width"] == 1:
                w(f"  bool {lower_camel(f['name'])} = false;")
            else:
                ctype = ("int64_t" if f["width"] > 32 else "int32_t") if f.get("signed") else \
                        ("uint64_t" if f["width"] > 32 else "uint32_t")
                w(f"  {ctype} {lower_camel(f['name'])} = {f.get('init', 0)};")
        w("")
        w("  CommandWord encode() const {")
        w("    CommandWord c;")
        w("    c.set(field::kOpcode, static_cast<uint64_t>(kOpcode));")
        for f in isa["header"][1:]:
            w(f"    c.set(field::k{camel(f['name'])}, header.{lower_camel(f['name'])});")
        for f in op["fields"]:
            w(f"    c.set(field::{op['name']}::k{camel(f['name'])}, "
              f"static_cast<uint64_t>({lower_camel(f['name'])}));")
        w("    return c;")
        w("  }")
        w(f"  static {name} decode(const CommandWord& c) {{")
        w(f"    {name} d;")
        for f in isa["header"][1:]:
            w(f"    d.header.{lower_camel(f['name'])} = c.get(field::k{camel(f['name'])}) != 0;")
        for f in op["fields"]:
            lc = lower_camel(f["name"])
            getter = "getSigned" if f.get("signed") else "get"
            if "enum" in f:
                w(f"    d.{lc} = static_cast<{camel(f['enum'])}>(c.get(field::{op['name']}::k{camel(f['name'])}));")
            elif f["width"] == 1:
                w(f"    d.{lc} = c.get(field::{op['name']}::k{camel(f['name'])}) != 0;")
            else:
                w(f"    d.{lc} = static_cast<decltype(d.{lc})>(c.{getter}(field::{op['name']}::k{camel(f['name'])}));")
        w("    return d;")
        w("  }")
        w("};")
        w("")
    cpp_checks(params, micro, isa, w)
    w("// Register map.")
    w("namespace reg {")
    w(f"inline constexpr uint32_t kIdValue = {as_int(regs['id_value']):#010x};")
    v = regs["version"]
    w(f"inline constexpr uint32_t kVersionValue = {(v['major'] << 16) | v['minor']:#010x};")
    for r in regs["registers"]:
        w(f"inline constexpr uint32_t k{camel(r['name'])} = {as_int(r['addr']):#05x};  // {r['access']}")
        for f in r.get("fields", []):
            w(f"inline constexpr uint32_t k{camel(r['name'])}{camel(f['name'])}Lsb = {f['lsb']};")
            w(f"inline constexpr uint32_t k{camel(r['name'])}{camel(f['name'])}Mask = "
              f"{((1 << f['width']) - 1) << f['lsb']:#x};")
    w("")
    w("struct RegisterSpec {")
    w("  std::string_view name;")
    w("  uint32_t addr;")
    w("  std::string_view access;")
    w("  int param;  // index into kParamSpecs the register reads back, or -1")
    w("};")
    rs = regs["registers"]
    pindex = {p["name"]: i for i, p in enumerate(ps)}
    w(f"inline constexpr std::array<RegisterSpec, {len(rs)}> kRegisters{{{{")
    for r in rs:
        w(f"    {{{cpp_string(r['name'])}, {as_int(r['addr']):#05x}, {cpp_string(r['access'])}, "
          f"{pindex.get(r.get('param'), -1)}}},")
    w("}};")
    w("}  // namespace reg")
    w("")
    cs = regs["counters"]["list"]
    w("// Performance counters, in register (and snapshot) order.")
    w("enum class Counter : uint8_t {")
    for i, c in enumerate(cs):
        w(f"  k{camel(c['name'])} = {i},  // {c['doc']}")
    w("};")
    w(f"inline constexpr size_t kNumCounters = {len(cs)};")
    w(f"inline constexpr uint32_t kCounterBase = {as_int(regs['counters']['base']):#05x};")
    w("constexpr uint32_t counterAddr(Counter c) { return kCounterBase + 8u * static_cast<uint32_t>(c); }")
    w(f"inline constexpr std::array<std::string_view, {len(cs)}> kCounterNames{{{{")
    for c in cs:
        w(f"    {cpp_string(c['name'])},")
    w("}};")
    w("// A BARRIER snapshot: the 64-bit tag, then every counter, little-endian.")
    w(f"inline constexpr size_t kSnapshotBytes = 8 * (1 + kNumCounters);")
    w("")
    w("// The named configurations of hw/configs/, embedded so that binaries need no source tree.")
    w("struct NamedConfigText {")
    w("  std::string_view name;")
    w("  std::string_view json;")
    w("};")
    w(f"inline constexpr std::array<NamedConfigText, {len(configs)}> kNamedConfigs{{{{")
    for name, text in configs:
        w(f"    {{{cpp_string(name)}, {cpp_string(text)}}},")
    w("}};")
    w("")
    w("}  // namespace weft::hw")
    return "\n".join(out) + "\n"


def cmake_configs(params, configs):
    """For each named configuration: its RTL key, verilator -G arguments and bus width."""
    out = ["# Generated by hw/gen/hwgen.py from hw/configs/*.json. Do not edit.", ""]
    names = []
    for name, text in configs:
        values = config_values(params, configs, name)
        rtl = [p["name"] for p in params["params"] if p["rtl"]]
        key = "_".join(f"{n}{values[n]}" for n in rtl)
        out.append(f'set(WEFT_RTL_CONFIG_{name}_KEY "{key}")')
        out.append(f'set(WEFT_RTL_CONFIG_{name}_PARAMS {" ".join(f"-G{n}={values[n]}" for n in rtl)})')
        out.append(f'set(WEFT_RTL_CONFIG_{name}_BUS_BYTES {values["BusBytes"]})')
        names.append(name)
    out.append(f'set(WEFT_RTL_NAMED_CONFIGS {" ".join(names)})')
    return "\n".join(out) + "\n"


def lower_camel(name):
    c = camel(name)
    return c[:1].lower() + c[1:]


def write_if_changed(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", required=True, help="hw/spec directory")
    ap.add_argument("--configs", required=True, help="hw/configs directory")
    ap.add_argument("--out", required=True, help="output directory")
    args = ap.parse_args()
    params = load(args.spec, "params.json")
    micro = load(args.spec, "micro.json")
    isa = load(args.spec, "isa.json")
    regs = load(args.spec, "regs.json")
    configs = []
    for fn in sorted(os.listdir(args.configs)):
        if fn.endswith(".json"):
            with open(os.path.join(args.configs, fn), encoding="utf-8") as f:
                text = f.read()
            configs.append((json.loads(text)["name"], text))
    try:
        validate(params, micro, isa, regs)
        if len({name for name, _ in configs}) != len(configs):
            raise SpecError("two named configurations share a name")
        for name, _ in configs:
            config_values(params, configs, name)
        package = sv_package(params, micro, isa, regs)
    except SpecError as e:
        print(f"hwgen: error: {e}", file=sys.stderr)
        return 1
    write_if_changed(os.path.join(args.out, "weft_pkg.sv"), package)
    write_if_changed(os.path.join(args.out, "weft", "hw", "generated.h"), cpp_header(params, micro, isa, regs, configs))
    write_if_changed(os.path.join(args.out, "rtl_configs.cmake"), cmake_configs(params, configs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
