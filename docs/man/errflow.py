# SPDX-License-Identifier: BSD-3-Clause
"""Which RPMA_E_* codes each exported function of rpma can return.

A small static analysis of the library's C++ sources (rpma/*.cc, *.hh and
rpma/c/*), enough for this code base and deliberately conservative:

- every function body is found (out-of-class definitions, methods defined
  in class bodies, free functions, templates; constructor initialiser
  lists count as part of the body); both branches of #if/#else count;
- a function "returns" a code when an RPMA_E_* name appears in its body
  other than in a comparison (==, !=) or a case label: return statements,
  throw Error(...), a code stored and returned later;
- calls are followed: free functions, methods (the receiver's class is
  taken from the declaration of the variable, parameter or member, from
  impl(handle) of the C API, or from the return type of the call it is made
  on), constructors (T x(...), T(...), new T, std::make_unique<T>);
  a method call whose receiver cannot be typed is taken to reach every
  method of that name (an over-approximation);
- a function that allocates (std::make_unique, new, vector::assign, ...)
  can fail with std::bad_alloc, which the C API turns into RPMA_E_NOMEM;
- catch handlers for std::bad_alloc and for "..." are not counted as
  returning their codes by themselves: bad_alloc is accounted for by the
  allocation rule above, and "..." only catches exceptions the library never
  throws (this is checked: every throw in rpma/ must throw rpma::Error,
  otherwise those handlers count).

What the analysis cannot know is stated in docs/man/errors-adjust.tbl,
one line per function and code, with the reason; a stale line is an error.
"""

import os
import re

import manlib

KEYWORDS = {
    "if", "for", "while", "switch", "return", "sizeof", "catch", "throw",
    "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast",
    "decltype", "alignas", "alignof", "noexcept", "static_assert", "case",
    "delete", "new", "defined", "typeid", "co_return", "requires",
}
ALLOCATORS = {"make_unique", "make_shared", "assign", "push_back", "emplace_back",
              "resize", "reserve", "insert", "to_string"}
ALLOC = "<alloc>"

TOKEN = re.compile(r"[A-Za-z_]\w*|::|->\*?|\.\*|&&|\|\||[=!<>]=|<<|>>|\d[\w.]*|\S")


class Function:
    def __init__(self, name, cls, decl, params, body, path):
        self.name = name        # unqualified
        self.cls = cls          # class name or None
        self.decl = decl        # tokens before the name (return type, specifiers)
        self.params = params    # tokens of the parameter list
        self.body = body        # tokens of the initialiser list and the body
        self.path = path
        self.exported = "RPMA_EXPORT" in decl

    @property
    def qname(self):
        return "%s::%s" % (self.cls, self.name) if self.cls else self.name


class Source:
    """Every function, class member and type alias of the library."""

    def __init__(self, rpma_dir):
        self.functions = []
        self.members = {}    # class -> token string of member declarations
        self.classes = set()
        self.aliases = {}    # alias -> class
        self.handles = {}    # rpma_* C handle -> class
        self.foreign_throw = False
        paths = []
        for root, _, files in os.walk(rpma_dir):
            for f in files:
                if f.endswith((".cc", ".hh")):
                    paths.append(os.path.join(root, f))
        texts = {}
        for path in sorted(paths):
            with open(path, encoding="utf-8") as f:
                raw = f.read()
            for m in re.finditer(r"struct\s+Impl<(\w+)>\s*\{\s*using\s+type\s*=\s*(\w+)\s*;", raw):
                self.handles[m.group(1)] = m.group(2)
            texts[path] = manlib.strip_preprocessor(manlib.strip_c_comments(raw))
        for path, text in texts.items():
            toks = TOKEN.findall(text)
            for i, t in enumerate(toks):
                if t in ("class", "struct") and i + 1 < len(toks) and re.match(r"\w", toks[i + 1]):
                    if i == 0 or toks[i - 1] != "enum":
                        self.classes.add(toks[i + 1])
        for path, text in texts.items():
            toks = TOKEN.findall(text)
            for m in re.finditer(r"\busing (\w+) = (\w+) <", " ".join(toks)):
                self.aliases[m.group(1)] = m.group(2)
            for i, t in enumerate(toks):
                if t == "throw" and i + 1 < len(toks) and toks[i + 1] not in ("Error", ";"):
                    self.foreign_throw = True
            self._scope(toks, 0, None, path)
        self.by_name = {}
        for f in self.functions:
            self.by_name.setdefault(f.name, []).append(f)

    # -- parsing -------------------------------------------------------

    @staticmethod
    def _match(toks, i):
        """Index of the bracket closing toks[i]."""
        pairs = {"(": ")", "{": "}", "[": "]"}
        open_, close, depth = toks[i], pairs[toks[i]], 0
        for j in range(i, len(toks)):
            if toks[j] == open_:
                depth += 1
            elif toks[j] == close:
                depth -= 1
                if depth == 0:
                    return j
        return len(toks) - 1

    def _scope(self, toks, i, cls, path, end=None):
        """Parses declarations from toks[i] up to end (exclusive)."""
        end = len(toks) if end is None else end
        decl = []
        while i < end:
            t = toks[i]
            if t == "namespace":
                j = i + 1
                while j < end and toks[j] not in ("{", ";", "="):
                    j += 1
                if j < end and toks[j] == "{":
                    k = self._match(toks, j)
                    self._scope(toks, j + 1, cls, path, k)
                    i, decl = k + 1, []
                    continue
                i, decl = j + 1, []
                continue
            if t in (";",):
                self._member(cls, decl)
                i, decl = i + 1, []
                continue
            if t in ("public", "private", "protected") and i + 1 < end and toks[i + 1] == ":":
                i += 2
                continue
            if t in ("class", "struct", "union", "enum") and not any(x == "(" for x in decl) \
                    and not (decl and decl[-1] in ("<", ",")):  # not template <class T>
                is_enum = t == "enum"
                j = i + 1
                name = None
                while j < end and toks[j] not in ("{", ";"):
                    if name is None and re.match(r"[A-Za-z_]", toks[j]) and toks[j] not in ("class", "struct"):
                        name = toks[j]
                    if toks[j] == "(":
                        break
                    j += 1
                if j < end and toks[j] == "{":
                    k = self._match(toks, j)
                    if not is_enum:
                        self._scope(toks, j + 1, name, path, k)
                    i = k + 1
                    # a variable of the type may follow: skip to ';'
                    while i < end and toks[i] != ";":
                        i += 1
                    i, decl = i + 1, []
                    continue
                if j < end and toks[j] == ";":
                    i, decl = j + 1, []
                    continue
                # "struct X y(...)" and the like: an ordinary declaration
            if t == "{":
                fn = self._function_head(decl)
                k = self._match(toks, i)
                if fn is not None and decl and re.match(r"\w", decl[-1]) and \
                        ":" in decl[self._match(decl, fn[2]) + 1:]:
                    fn = None  # a member initialised with braces: a_{x}
                if fn is not None:
                    name, qcls, head_end = fn
                    params_open = head_end
                    params_close = self._match(decl, params_open)
                    rest = decl[params_close + 1:]
                    init = []
                    if ":" in rest:
                        init = rest[rest.index(":") + 1:]
                    fcls = qcls if qcls is not None else cls
                    self.functions.append(Function(
                        name, fcls, decl[:params_open - 1], decl[params_open + 1:params_close],
                        init + toks[i + 1:k], path))
                    i, decl = k + 1, []
                    if i < end and toks[i] == ";":
                        i += 1
                    continue
                # an initialiser: part of the declaration
                decl = decl + toks[i:k + 1]
                i = k + 1
                continue
            decl.append(t)
            i += 1

    def _function_head(self, decl):
        """(name, class or None, index of its '(') when decl is a function head."""
        depth = 0
        for j, t in enumerate(decl):
            if t == "=" and depth == 0:
                return None
            if t == ")":
                depth -= 1
            if t != "(":
                continue
            if depth > 0:
                depth += 1
                continue
            depth += 1
            prev = decl[j - 1] if j else ""
            if "operator" in decl[max(0, j - 3):j]:
                k = decl.index("operator", max(0, j - 3))
                return ("operator" + "".join(decl[k + 1:j]), None, j)
            if not re.match(r"[A-Za-z_]\w*$", prev) or prev in KEYWORDS:
                return None
            if prev in ("alignas", "__attribute__"):
                return None
            name, k = prev, j - 2
            if k >= 0 and decl[k] == "~":
                name, k = "~" + prev, k - 1
            qcls = decl[k - 1] if k >= 1 and decl[k] == "::" else None
            return (name, qcls, j)
        return None

    def _member(self, cls, decl):
        if cls and decl:
            self.members[cls] = self.members.get(cls, "") + " " + " ".join(decl) + " ;"

    # -- types ---------------------------------------------------------

    def resolve_class(self, name):
        name = self.aliases.get(name, name)
        return name if name in self.classes else None

    def declarations(self, text):
        """{variable: (class, kind)} declared in a token string; kind is
        'value' (object or reference), 'ptr' or 'uptr' (std::unique_ptr)."""
        found = {}
        for m in re.finditer(r"unique_ptr < (?:typename )?(?:\w+ :: )*(\w+) > (?:const )?(\w+) (?=[;,)=({\[])", text):
            c = self.resolve_class(m.group(1))
            if c:
                found[m.group(2)] = (c, "uptr")
        for m in re.finditer(r"\bauto (\w+) = (?:std :: )?make_unique < (\w+) >", text):
            c = self.resolve_class(m.group(2))
            if c:
                found[m.group(1)] = (c, "uptr")
        for m in re.finditer(r"\b(\w+) (?:const )?(\*+ |& |&& )?(?:const )?(\w+) (?=[;,)=({\[])", text):
            c = self.resolve_class(m.group(1))
            if c and m.group(3) not in KEYWORDS and not self.resolve_class(m.group(3)):
                found.setdefault(m.group(3), (c, "ptr" if m.group(2) and "*" in m.group(2) else "value"))
        return found

    def handle_types(self, params_text):
        found = {}
        for m in re.finditer(r"\b(rpma_\w+) (\*+) ?(?:const )?(\w+)", params_text):
            if m.group(1) in self.handles:
                found[m.group(3)] = self.handles[m.group(1)]
        return found

    def return_classes(self, fname, receiver_classes=None):
        result = set()
        for f in self.by_name.get(fname, []):
            if receiver_classes is not None and f.cls not in receiver_classes:
                continue
            text = " ".join(f.decl)
            m = re.search(r"unique_ptr < (\w+) >", text)
            if m and self.resolve_class(m.group(1)):
                result.add((self.resolve_class(m.group(1)), "uptr"))
                continue
            for w in reversed(f.decl):
                c = self.resolve_class(w)
                if c:
                    result.add((c, "ptr" if "*" in f.decl else "value"))
                    break
        return result


class Analysis:
    def __init__(self, rpma_dir):
        self.src = Source(rpma_dir)
        self.notes = []  # over-approximations made, for --verbose
        self.direct = {}
        self.calls = {}
        for f in self.src.functions:
            self._analyse(f)
        self._closure()

    def _strip_handlers(self, toks):
        if self.src.foreign_throw:
            return toks
        out, i = [], 0
        while i < len(toks):
            if toks[i] == "catch" and i + 1 < len(toks) and toks[i + 1] == "(":
                k = Source._match(toks, i + 1)
                param = toks[i + 2:k]
                if k + 1 < len(toks) and toks[k + 1] == "{" and (
                        param == ["..."] or param == [".", ".", "."] or "bad_alloc" in param):
                    i = Source._match(toks, k + 1) + 1
                    continue
            out.append(toks[i])
            i += 1
        return out

    def _analyse(self, f):
        src = self.src
        toks = self._strip_handlers(f.body)
        direct = {}
        calls = set()
        text_all = " ".join(f.params) + " ; " + " ".join(toks)
        local = src.declarations(text_all)
        members = src.declarations(src.members.get(f.cls, "")) if f.cls else {}
        handles = src.handle_types(" ".join(f.params))
        param_names = set(re.findall(r"(\w+) (?=[,)]|$)", " ".join(f.params) + " "))

        def var_type(name):
            if name in local:
                return local[name]
            if name in members:
                return members[name]
            return None

        for i, t in enumerate(toks):
            if t.startswith("RPMA_E_"):
                prev = toks[i - 1] if i else ""
                if prev not in ("==", "!=", "case"):
                    direct.setdefault(t, "%s returns it" % f.qname)
                continue
            if t in ALLOCATORS or t == "new":
                if t == "new" or (i + 1 < len(toks) and toks[i + 1] in ("(", "<")):
                    direct.setdefault(ALLOC, "%s allocates (%s)" % (f.qname, t))
            if t == "new" and i + 1 < len(toks):
                c = src.resolve_class(toks[i + 1])
                if c:
                    calls.update(self._ctors(c))
                continue
            if t != "(" or i == 0:
                continue
            # the callee: an identifier, maybe with template arguments
            j = i - 1
            targs = []
            if toks[j] == ">":
                depth, k = 0, j
                while k >= 0:
                    if toks[k] == ">":
                        depth += 1
                    elif toks[k] == "<":
                        depth -= 1
                        if depth == 0:
                            break
                    k -= 1
                targs = toks[k + 1:j]
                j = k - 1
            if j < 0 or not re.match(r"[A-Za-z_]\w*$", toks[j]) or toks[j] in KEYWORDS:
                continue
            name = toks[j]
            before = toks[j - 1] if j else ""
            if name == "make_unique" and targs:
                c = src.resolve_class(targs[0])
                if c:
                    calls.update(self._ctors(c))
                continue
            if before == "::":
                qual = toks[j - 2] if j >= 2 else ""
                c = src.resolve_class(qual)
                if c:
                    calls.update(g for g in src.by_name.get(name, []) if g.cls == c)
                elif qual in ("rpma", "c", "log", ""):
                    calls.update(g for g in src.by_name.get(name, []) if g.cls is None)
                continue
            if before in (".", "->"):
                recv = self._receiver(toks, j - 2, before, var_type, handles, param_names)
                if recv is None:
                    cands = [g for g in src.by_name.get(name, []) if g.cls]
                    if cands:
                        self.notes.append("%s: %s%s() on an untyped receiver reaches %s"
                                          % (f.qname, before, name, ", ".join(sorted({g.qname for g in cands}))))
                    calls.update(cands)
                else:
                    calls.update(g for g in src.by_name.get(name, []) if g.cls in recv)
                continue
            # a declaration with constructor arguments: T x(...)
            if before and src.resolve_class(before) and name not in param_names:
                calls.update(self._ctors(src.resolve_class(before)))
                continue
            if name in param_names:
                continue  # a callable parameter: its body is the caller's lambda
            if f.cls and any(g.cls == f.cls for g in src.by_name.get(name, [])):
                calls.update(g for g in src.by_name[name] if g.cls == f.cls)
                continue
            frees = [g for g in src.by_name.get(name, []) if g.cls is None]
            if frees:
                calls.update(frees)
                continue
            c = src.resolve_class(name)
            if c:
                calls.update(self._ctors(c))
        self.direct[f] = direct
        self.calls[f] = calls

    def _ctors(self, cls):
        return {g for g in self.src.by_name.get(cls, []) if g.cls == cls}

    def _receiver(self, toks, k, arrow, var_type, handles, param_names):
        """Classes a member call's receiver toks[..k] can have, or None."""
        if k < 0:
            return None
        t = toks[k]
        if t == ")":
            depth, m = 0, k
            while m >= 0:
                if toks[m] == ")":
                    depth += 1
                elif toks[m] == "(":
                    depth -= 1
                    if depth == 0:
                        break
                m -= 1
            callee = toks[m - 1] if m >= 1 else ""
            if callee == "impl":
                arg = [x for x in toks[m + 1:k] if x != "*"]
                if len(arg) == 1 and arg[0] in handles:
                    return {handles[arg[0]]}
                return None
            if callee in param_names:
                return set()  # the result of a callable parameter: standard types
            if re.match(r"\w+$", callee) and callee not in KEYWORDS:
                outer = None
                if m >= 2 and toks[m - 2] in (".", "->"):
                    outer = self._receiver(toks, m - 3, toks[m - 2], var_type, handles, param_names)
                elif m >= 2 and toks[m - 2] == "::" and self.src.resolve_class(toks[m - 3]):
                    outer = {self.src.resolve_class(toks[m - 3])}
                types = self.src.return_classes(callee, outer)
                if not types and not self.src.by_name.get(callee):
                    return set()  # a library function: not a class of rpma
                return self._deref(types, arrow) if types else None
            return None
        if re.match(r"[A-Za-z_]\w*$", t):
            before = toks[k - 1] if k else ""
            if before in (".", "->"):
                return None
            vt = var_type(t)
            if vt is None:
                return None
            return self._deref({vt}, arrow)
        return None

    @staticmethod
    def _deref(types, arrow):
        result = set()
        for cls, kind in types:
            if arrow == "->" and kind in ("ptr", "uptr"):
                result.add(cls)
            elif arrow == "." and kind == "value":
                result.add(cls)
            # '.' on a unique_ptr and '->' on an object reach standard members
        return result

    def _closure(self):
        self.codes = {f: dict(d) for f, d in self.direct.items()}
        changed = True
        while changed:
            changed = False
            for f, callees in self.calls.items():
                mine = self.codes[f]
                for g in callees:
                    for code in self.codes[g]:
                        if code not in mine:
                            mine[code] = "%s -> %s" % (f.qname, self.codes[g][code])
                            changed = True

    def exported(self):
        """{function: {code: how}} for the C API, allocation failures as NOMEM."""
        result = {}
        for f in self.src.functions:
            if not f.exported:
                continue
            codes = {}
            for code, how in self.codes[f].items():
                if code == ALLOC:
                    codes.setdefault("RPMA_E_NOMEM", how + ", which can throw std::bad_alloc")
                else:
                    codes.setdefault(code, how)
            result[f.name] = codes
        return result


def read_adjustments(path):
    """[(function, sign, code, reason, line number)]"""
    result = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = re.match(r"^(rpma_\w+)\s+([+-])(RPMA_E_\w+)\s+(\S.*)$", line)
            if not m or m.group(3) not in manlib.ERROR_CODES:
                raise manlib.ManError("%s:%d: expected '<function> +|-RPMA_E_<CODE> <reason>'" % (path, no))
            result.append((m.group(1), m.group(2), m.group(3), m.group(4), no))
    return result
