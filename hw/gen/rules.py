"""The expression language of hw/spec: field rules ("checks") and memory geometry.

An expression is a Python expression over integers: the fields of one command, the hardware
parameters (params.json), the micro-architecture constants (micro.json) and enum values written
enum.value (isa.json's enums, and an enumerated parameter's values: Dataflow.OS), with +, -, *, // (non-negative operands only), comparisons, and, or, not, parentheses
and the helpers
    zp_fits(zp, is_signed)   [-128, 127] when is_signed, else [0, 255]
    defined(field)           an enum field holds one of its enum's values
    mem_row_bytes(m)         bytes in a row of memory m (isa.json "memories")
    mem_rows(m)              rows of memory m
Values are 64-bit signed integers; fields read unsigned unless the spec marks them signed.
The same expression becomes SystemVerilog (the controller's decode) and C++ (the models), so
the hardware and its models cannot disagree about what a command may hold.
"""
import ast
import re


class RuleError(Exception):
    pass


class Scope:
    """What names mean while translating: fields of one opcode, parameters, constants, enums."""

    def __init__(self, fields, params, micro, enums, memories, mem_enum):
        self.fields = {f["name"]: f for f in fields}
        self.params = {p["name"]: p for p in params}
        self.micro = {c["name"]: c["value"] for c in micro}
        self.enums = {e["name"]: {v["name"]: v["value"] for v in e["values"]} for e in enums}
        for p in params:  # an enumerated parameter's values: Dataflow.OS is 1
            if p.get("values"):
                if p["name"] in self.enums:
                    raise RuleError(f"parameter {p['name']} and an enum of isa.json share the name")
                self.enums[p["name"]] = {v: i for i, v in enumerate(p["values"])}
        self.memories = memories  # [(enum value, row_bytes expr, rows expr)]
        self.mem_enum = mem_enum


class _Translator:
    """One target language: subclasses say how names, calls and operators are spelled."""

    def __init__(self, scope):
        self.scope = scope

    def expr(self, text):
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as e:
            raise RuleError(f"cannot parse '{text}': {e.msg}") from None
        return self.node(tree.body, text)

    def node(self, n, text):
        if isinstance(n, ast.BoolOp):
            op = self.AND if isinstance(n.op, ast.And) else self.OR
            return self.boolean("(" + f" {op} ".join(self.truth(self.node(v, text)) for v in n.values) + ")")
        if isinstance(n, ast.UnaryOp):
            inner = self.node(n.operand, text)
            if isinstance(n.op, ast.Not):
                return self.boolean(f"({inner} == {self.number(0)})")
            if isinstance(n.op, ast.USub):
                return f"(-{inner})"
            raise RuleError(f"'{text}': unsupported unary operator")
        if isinstance(n, ast.BinOp):
            ops = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "/"}
            if type(n.op) not in ops:
                raise RuleError(f"'{text}': unsupported operator {type(n.op).__name__}")
            return f"({self.node(n.left, text)} {ops[type(n.op)]} {self.node(n.right, text)})"
        if isinstance(n, ast.Compare):
            if len(n.ops) != 1:
                raise RuleError(f"'{text}': chained comparisons are not allowed")
            ops = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
            if type(n.ops[0]) not in ops:
                raise RuleError(f"'{text}': unsupported comparison")
            return self.boolean(f"({self.node(n.left, text)} {ops[type(n.ops[0])]} {self.node(n.comparators[0], text)})")
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
            return self.number(n.value)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
            values = self.scope.enums.get(n.value.id)
            if values is None or n.attr not in values:
                raise RuleError(f"'{text}': unknown enum value {n.value.id}.{n.attr}")
            return self.number(values[n.attr])
        if isinstance(n, ast.Name):
            return self.name(n.id, text)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            return self.call(n.func.id, n.args, text)
        raise RuleError(f"'{text}': unsupported expression {ast.dump(n)}")

    def name(self, ident, text):
        s = self.scope
        if ident in s.fields:
            return self.field(s.fields[ident])
        if ident in s.params:
            if not s.params[ident]["rtl"]:
                raise RuleError(f"'{text}': {ident} is a model parameter the hardware does not see")
            return self.param(ident)
        if ident in s.micro:
            return self.number(s.micro[ident])
        raise RuleError(f"'{text}': unknown name {ident}")

    def call(self, fn, args, text):
        if fn == "zp_fits" and len(args) == 2:
            zp, sgn = self.node(args[0], text), self.node(args[1], text)
            lo, hi = self.number(-128), self.number(127)
            zero, top = self.number(0), self.number(255)
            return self.boolean(f"({self.truth(sgn)} {self.AND} {zp} >= {lo} {self.AND} {zp} <= {hi}) {self.OR} "
                                f"(!{self.truth(sgn)} {self.AND} {zp} >= {zero} {self.AND} {zp} <= {top})")
        if fn == "defined" and len(args) == 1 and isinstance(args[0], ast.Name):
            f = self.scope.fields.get(args[0].id)
            if f is None or "enum" not in f:
                raise RuleError(f"'{text}': defined() takes an enum field")
            v = self.field(f)
            values = sorted(self.scope.enums[f["enum"]].values())
            return self.boolean("(" + f" {self.OR} ".join(f"{v} == {self.number(x)}" for x in values) + ")")
        if fn in ("mem_row_bytes", "mem_rows") and len(args) == 1:
            m = self.node(args[0], text)
            out = self.number(0)
            for value, row_bytes, rows in reversed(self.scope.memories):
                geometry = self.expr(row_bytes if fn == "mem_row_bytes" else rows)
                out = f"({m} == {self.number(value)} ? {geometry} : {out})"
            return out
        raise RuleError(f"'{text}': unknown function {fn} or wrong arguments")


class SvTranslator(_Translator):
    """SystemVerilog: fields sliced from the command `c` of opcode `opname`, 64-bit signed
    arithmetic. Every sub-expression is 64 bits signed (a condition is 0 or 1), so no operator
    mixes widths. Extensions are explicit concatenations, not casts, so that yosys 0.23 reads
    them (rtl/README.md)."""
    AND, OR = "&&", "||"

    def truth(self, e):
        return f"({e} != 64'sd0)"

    def boolean(self, e):
        return f"$signed({{63'd0, {e}}})"

    def __init__(self, scope, opname):
        super().__init__(scope)
        self.prefix = "".join(p[:1].upper() + p[1:].lower() for p in re.split(r"[_\s]+", opname) if p)

    def number(self, v):
        return f"64'sd{v}" if v >= 0 else f"(-64'sd{-v})"

    def field(self, f):
        name = self.prefix + "".join(p[:1].upper() + p[1:].lower() for p in f["name"].split("_") if p)
        ref = f"c[{name}Lsb +: {name}W]"
        pad = 64 - f["width"]
        if f.get("signed"):
            return f"$signed({{{{{pad}{{c[{name}Lsb + {f['width'] - 1}]}}}}, {ref}}})"
        return f"$signed({{{pad}'d0, {ref}}})"

    def param(self, name):
        return f"$signed({{32'd0, {name}}})"


class CppTranslator(_Translator):
    """C++: fields read from the CommandWord `c`, parameters from the configuration `cfg`."""
    AND, OR = "&&", "||"

    def truth(self, e):
        return f"({e} != 0)"

    def boolean(self, e):
        return f"int64_t{{{e}}}"

    def __init__(self, scope, opname):
        super().__init__(scope)
        self.opname = opname

    def number(self, v):
        return f"int64_t{{{v}}}"

    def field(self, f):
        from_word = "getSigned" if f.get("signed") else "get"
        camel = "".join(p[:1].upper() + p[1:].lower() for p in f["name"].split("_") if p)
        return f"static_cast<int64_t>(c.{from_word}(field::{self.opname}::k{camel}))"

    def param(self, name):
        return f"int64_t{{cfg.get(Param::k{name})}}"
