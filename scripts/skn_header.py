"""skn_header.py — abi/skn.h read as declarations, for the scripts that
generate from it (scripts/abi_layouts, scripts/lua_cdef) so that no adapter
restates the header by hand.

The header keeps to a small, regular C: typedef'd structs and enums, one
declarator list per field, function pointers only in structs, `SKN_API`
prototypes and integer #defines. parse() reads exactly that and refuses
anything else, naming it, so that a header construct it does not know
cannot slip past the adapters' checks unread.
"""
import re

# The kinds an adapter declares: what a value is to an FFI, not to C.
SCALAR_KINDS = {
    "void": "void", "uint8_t": "u8", "uint16_t": "u16", "uint32_t": "u32", "int32_t": "i32",
    "uint64_t": "u64", "float": "f32", "double": "f64", "size_t": "size", "char": "char",
}


class Field:
    def __init__(self, name, ctype, count=None, fn=None):
        self.name, self.ctype, self.count, self.fn = name, ctype, count, fn

    def decl(self):
        """The field as C declares it (one declarator)."""
        if self.fn:
            return f"{self.fn.ret} (*{self.name})({self.fn.param_list()})"
        return f"{self.ctype} {self.name}" + (f"[{self.count}]" if self.count else "")


class Function:
    def __init__(self, name, ret, params):
        self.name, self.ret, self.params = name, ret, params  # params: [(ctype, name)]

    def param_list(self):
        return ", ".join(f"{t} {n}".strip() for t, n in self.params) or "void"

    def decl(self):
        return f"{self.ret} {self.name}({self.param_list()})"


class Header:
    def __init__(self):
        self.opaque = []     # typedef struct X X; with no body in the header
        self.structs = {}    # name -> [Field], in declaration order
        self.enums = {}      # typedef name (or None for anonymous) -> [constant names], in order
        self.anonymous = []  # lists of constant names of each anonymous enum
        self.items = {}      # enum typedef name, or an anonymous enum's index -> ["NAME = expr" | "NAME"]
        self.forward = []    # every `typedef struct X X;`, bodies later or never
        self.defines = {}    # NAME -> integer literal text
        self.functions = {}  # name -> Function, in order
        self.order = []      # ('struct'|'enum'|'anon'|'opaque'|'function', name) in header order

    def kind(self, ctype):
        """An FFI kind for a C type: a scalar kind, 'str' for a const char * (a
        NUL-terminated string in), 'ptr' for any other pointer, an enum's 'u32' (the header forces every enum to 32 bits), or a
        struct's own name (by value)."""
        t = ctype.replace("const ", "").strip()
        if t.endswith("*"):
            return "str" if ctype == "const char *" else "ptr"
        if t in SCALAR_KINDS:
            return SCALAR_KINDS[t]
        if t in self.enums:
            return "u32"
        if t in self.structs:
            return t
        raise ValueError(f"skn.h: type '{ctype}' is not one the adapters know")


def strip(text):
    """Comments out, continued lines joined, the C++ guards out."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = text.replace("\\\n", " ")
    text = re.sub(r"#ifdef __cplusplus.*?#endif", "", text, flags=re.S)
    return text


def split_top(body, sep):
    """body split at `sep` outside parentheses and braces."""
    parts, depth, cur = [], 0, ""
    for ch in body:
        depth += ch in "({"
        depth -= ch in ")}"
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def split_decl(decl):
    """'const float *x' -> ('const float *', 'x'); a lone type -> (type, '')."""
    m = re.fullmatch(r"(.*?[\s*])(\w+)", decl.strip())
    if not m or m.group(1).strip() in ("", "const", "struct", "enum"):
        return (" ".join(decl.split()), "")
    return (norm_type(m.group(1)), m.group(2))


def norm_type(t):
    t = " ".join(t.replace("*", " * ").split())
    return t.replace("* *", "**")


def params(text):
    if text.strip() in ("", "void"):
        return []
    return [split_decl(p) for p in split_top(text, ",")]


def fields(body, where):
    out = []
    for decl in split_top(body, ";"):
        fn = re.fullmatch(r"(.+?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)", decl, flags=re.S)
        if fn:
            ret = norm_type(fn.group(1))
            out.append(Field(fn.group(2), "fnptr", fn=Function(fn.group(2), ret, params(fn.group(3)))))
            continue
        first, *rest = split_top(decl, ",")
        ctype, name = split_decl(re.sub(r"\[(\w+)\]$", "", first))
        if not name:
            raise ValueError(f"skn.h: {where}: cannot read the field '{decl}'")
        names = [first] + rest
        for n in names:
            m = re.fullmatch(r"(?:.*?[\s*])?(\w+)\s*(?:\[(\w+)\])?", n.strip())
            out.append(Field(m.group(1), ctype, m.group(2)))
    return out


def enum_names(body):
    return [item.split("=")[0].strip() for item in split_top(body, ",")]


def parse(text):
    h = Header()
    text = strip(text)
    for m in re.finditer(r"^\s*#\s*define\s+(SKN_\w+)\s+(0x[0-9A-Fa-f]+u?|\d+u?)\s*$", text, flags=re.M):
        h.defines[m.group(1)] = m.group(2)
    text = re.sub(r"^\s*#[^\n]*", "", text, flags=re.M)
    text = re.sub(r'extern\s+"C"\s*\{', "", text)
    for decl in split_top(text, ";"):
        decl = " ".join(decl.split())
        if m := re.fullmatch(r"typedef struct (\w+) (\w+)", decl):
            h.opaque.append(m.group(2))
            h.forward.append(m.group(2))
            h.order.append(("opaque", m.group(2)))
        elif m := re.fullmatch(r"(?:typedef )?struct (\w+) \{(.*)\}\s*(\w*)", decl):
            name = m.group(3) or m.group(1)
            h.structs[name] = fields(m.group(2), name)
            h.order.append(("struct", name))
        elif m := re.fullmatch(r"typedef enum (\w+) \{(.*)\} (\w+)", decl):
            h.enums[m.group(3)] = enum_names(m.group(2))
            h.items[m.group(3)] = split_top(m.group(2), ",")
            h.order.append(("enum", m.group(3)))
        elif m := re.fullmatch(r"enum \{(.*)\}", decl):
            h.anonymous.append(enum_names(m.group(1)))
            h.items[len(h.anonymous) - 1] = split_top(m.group(1), ",")
            h.order.append(("anon", len(h.anonymous) - 1))
        elif m := re.fullmatch(r"SKN_API (.+?)\b(skn_\w+)\((.*)\)", decl):
            h.functions[m.group(2)] = Function(m.group(2), norm_type(m.group(1)), params(m.group(3)))
            h.order.append(("function", m.group(2)))
        elif decl:
            raise ValueError(f"skn.h: a declaration the adapters' generators do not know: '{decl[:80]}'")
    h.opaque = [o for o in h.opaque if o not in h.structs]
    h.order = [o for o in h.order if o[0] != "opaque" or o[1] in h.opaque]
    return h


def read(path):
    with open(path) as f:
        return parse(f.read())
