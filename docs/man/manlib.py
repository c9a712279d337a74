# SPDX-License-Identifier: BSD-3-Clause
"""The manual of rpma: page sources, the public header and troff output.

A page source (docs/man/src/<name>.<section>.md) is plain text:

    rpma_mr_reg - register memory for RDMA       <- NAME line
    ## DESCRIPTION                               <- sections
    ...

Markup inside sections:
    *word*        italic (parameter names)
    **word**      bold
    `text`        literal, bold (constants, code)
    name(3)       a reference to another page, the name set in bold
    blank line    new paragraph
    - item        bulleted list item; indented lines continue it
    term          a tagged paragraph: the term on its own line,
    : text        the text on the next line(s)
    ### Title     a subsection
    ```           a literal example, up to the closing ```

In ERRORS, each code is one list item "- RPMA_E_CODE: when".
Section 3 pages take NAME's function name and the whole SYNOPSIS from
rpma/librpma.h, so the manual cannot disagree with the header.
"""

import os
import re
import time

SECTIONS_3 = ["DESCRIPTION", "RETURN VALUE", "ERRORS", "NOTES", "SEE ALSO"]
REQUIRED_3 = ["DESCRIPTION", "RETURN VALUE", "ERRORS", "SEE ALSO"]

ERROR_CODES = [
    "RPMA_E_UNKNOWN", "RPMA_E_NOSUPP", "RPMA_E_PROVIDER", "RPMA_E_NOMEM",
    "RPMA_E_INVAL", "RPMA_E_NO_COMPLETION", "RPMA_E_NO_EVENT", "RPMA_E_AGAIN",
    "RPMA_E_SHARED_CHANNEL", "RPMA_E_NOT_SHARED_CHNL",
]


class ManError(Exception):
    pass


# ---------------------------------------------------------------- header

def strip_c_comments(text):
    """Blanks out comments and string literals, keeping newlines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * max(0, j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_preprocessor(text):
    """Blanks out preprocessor lines (with their continuations)."""
    lines = text.split("\n")
    out, cont = [], False
    for line in lines:
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            out.append("")
        else:
            out.append(line)
    return "\n".join(out)


class Prototype:
    """One function declaration of the header."""

    def __init__(self, name, text):
        self.name = name
        self.text = text  # as laid out in the header, comments removed

    def params(self):
        inner = self.text[self.text.index("(") + 1:self.text.rindex(")")]
        return [p.strip() for p in split_top_level(inner, ",")]


def normalize_prototype(text):
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*([(),;\[\]])\s*", r"\1", text)
    text = re.sub(r",", ", ", text)
    text = re.sub(r"\s*\*\s*", " *", text)
    text = re.sub(r"\* \*", "**", text)
    text = text.replace("( *", "(*")
    return text.rstrip(";")


def split_top_level(text, sep):
    parts, depth, cur = [], 0, []
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


class Header:
    """The declarations of librpma.h the manual shows."""

    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            text = strip_preprocessor(strip_c_comments(f.read()))
        self.protos = {}  # name -> Prototype
        self.types = []   # [(name, text)] in header order: enums, structs, typedefs
        for m in re.finditer(r"\b(enum|struct)\s+(\w+)\s*\{[^{}]*\}\s*;", text):
            self.types.append((m.start(), m.group(2), tidy(m.group(0))))
        for m in re.finditer(r"\btypedef\b[^;]*;", text):
            tm = re.search(r"(\w+)\s*\(", m.group(0))
            if tm:
                self.types.append((m.start(), tm.group(1), tidy(m.group(0))))
        self.types = [(n, t) for _, n, t in sorted(self.types)]
        # the remaining statements: split on ; { }
        for m in re.finditer(r"[^;{}]+;", text):
            body = m.group(0).strip()
            if body.startswith("typedef") or "(" not in body:
                continue
            fm = re.search(r"\b(rpma_\w+)\s*\(", body)
            if fm:
                self.protos[fm.group(1)] = Prototype(fm.group(1), tidy(body))
        if not self.protos:
            raise ManError("%s: no rpma_* prototype found" % path)

    def synopsis(self, name):
        """Texts to show for function name: the types it uses, then its prototype."""
        proto = self.protos[name]
        wanted, todo = set(), [proto.text]
        while todo:
            text = todo.pop()
            for tname, ttext in self.types:
                if tname not in wanted and re.search(r"\b%s\b" % tname, text):
                    wanted.add(tname)
                    todo.append(ttext)
        return [t for n, t in self.types if n in wanted] + [proto.text]


def tidy(text):
    """A declaration as laid out in the header, without blank lines or trailing blanks."""
    lines = [l.rstrip() for l in text.strip().split("\n")]
    return "\n".join(l for l in lines if l.strip())


def read_header(path):
    return Header(path)


def read_map(path):
    """The global: symbols of a linker version script's public nodes: every
    node but LIBRPMA_PRIVATE (rpma/librpma_private.h, no manual)."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"#[^\n]*", "", f.read())
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    symbols = []
    for node, body in re.findall(r"([A-Za-z0-9_.]+)\s*\{(.*?)\}", text, re.S):
        if node == "LIBRPMA_PRIVATE":
            continue
        m = re.search(r"global:(.*?)(local:|$)", body, re.S)
        if m:
            symbols += [s.strip() for s in m.group(1).split(";") if s.strip()]
    if not symbols:
        raise ManError("%s: no global: list" % path)
    return symbols


# ---------------------------------------------------------------- sources

class Page:
    def __init__(self, path):
        self.path = path
        base = os.path.basename(path)
        m = re.match(r"^([A-Za-z0-9_-]+)\.([1-8])\.md$", base)
        if not m:
            raise ManError("%s: a page source is named <name>.<section>.md" % path)
        self.name, self.section = m.group(1), m.group(2)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        # an optional leading HTML comment (licence tag)
        while lines and (not lines[0].strip() or lines[0].lstrip().startswith("<!--")):
            lines.pop(0)
        if not lines:
            raise ManError("%s: empty" % path)
        head = re.match(r"^(\S+) - (.+)$", lines[0])
        if not head or head.group(1) != self.name:
            raise ManError("%s:1: the first line must be '%s - <summary>'" % (path, self.name))
        self.summary = head.group(2).strip()
        self.sections = []  # [(title, [lines])]
        for no, line in enumerate(lines[1:], 2):
            sm = re.match(r"^## (.+?)\s*$", line)
            if sm:
                self.sections.append((sm.group(1), []))
            elif self.sections:
                self.sections[-1][1].append(line)
            elif line.strip():
                raise ManError("%s:%d: text before the first section" % (path, no))
        self.validate()

    def section_lines(self, title):
        for t, body in self.sections:
            if t == title:
                return body
        return None

    def validate(self):
        titles = [t for t, _ in self.sections]
        if len(set(titles)) != len(titles):
            raise ManError("%s: a section appears twice" % self.path)
        if self.section != "3":
            return
        for t in titles:
            if t not in SECTIONS_3:
                raise ManError("%s: unexpected section '%s' (allowed: %s)"
                               % (self.path, t, ", ".join(SECTIONS_3)))
        for t in REQUIRED_3:
            if t not in titles:
                raise ManError("%s: missing section %s" % (self.path, t))
        order = [SECTIONS_3.index(t) for t in titles]
        if order != sorted(order):
            raise ManError("%s: sections out of order (%s)" % (self.path, ", ".join(SECTIONS_3)))
        self.errors()  # validates the list

    def errors(self):
        """[(code, text)] of the ERRORS section."""
        result, seen = [], set()
        for line in self.section_lines("ERRORS") or []:
            m = re.match(r"^- (\S+?):\s*(.*)$", line)
            if m:
                code = m.group(1).strip("`")
                if code not in ERROR_CODES:
                    raise ManError("%s: ERRORS lists '%s', not an RPMA_E_* code" % (self.path, code))
                if code in seen:
                    raise ManError("%s: ERRORS lists %s twice" % (self.path, code))
                seen.add(code)
                result.append((code, m.group(2)))
        return result

    def references(self):
        """Every name(section) the page mentions."""
        refs = set()
        for _, body in self.sections:
            for line in body:
                for m in re.finditer(r"\b([a-z][a-z0-9_]*)\(([1-8])\)", line):
                    refs.add((m.group(1), m.group(2)))
        return refs


def load_pages(srcdir):
    pages = {}
    for base in sorted(os.listdir(srcdir)):
        if base.endswith(".md"):
            page = Page(os.path.join(srcdir, base))
            pages[(page.name, page.section)] = page
    return pages


# ---------------------------------------------------------------- troff

def esc(text):
    """Escapes plain text for troff (not the start of a line)."""
    return text.replace("\\", "\\e")


def esc_literal(text):
    return esc(text).replace("-", "\\-")


_INLINE = re.compile(
    r"`([^`]+)`"                       # 1 literal
    r"|\*\*(.+?)\*\*"                  # 2 bold
    r"|(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])"  # 3 italic
    r"|\b([a-z][a-z0-9_]*)\(([1-8])\)"  # 4, 5 reference
)


def inline(text):
    out, pos = [], 0
    for m in _INLINE.finditer(text):
        out.append(esc(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append("\\fB\\%" + esc_literal(m.group(1)) + "\\fP")
        elif m.group(2) is not None:
            nohyph = "\\%" if re.match(r"^\w+$", m.group(2)) else ""
            out.append("\\fB" + nohyph + inline(m.group(2)) + "\\fP")
        elif m.group(3) is not None:
            out.append("\\fI" + inline(m.group(3)) + "\\fP")
        else:
            out.append("\\fB\\%" + esc(m.group(4)) + "\\fP(" + m.group(5) + ")")
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


def no_hyphenation(line):
    """Moves every \\% to the start of its word: there it keeps the word
    whole, elsewhere it would mark a hyphenation point."""
    words = line.split(" ")
    for k, w in enumerate(words):
        if "\\%" in w:
            words[k] = "\\%" + w.replace("\\%", "")
    return " ".join(words)


def text_line(text):
    line = no_hyphenation(inline(text.strip()))
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def render_blocks(lines, path="?"):
    """Troff for the body of one section."""
    out = []
    i, n = 0, len(lines)
    para = []

    def flush_para():
        if para:
            out.append(".PP")
            out.extend(text_line(l) for l in para)
            para.clear()

    while i < n:
        line = lines[i]
        if not line.strip():
            flush_para()
            i += 1
        elif line.startswith("```"):
            flush_para()
            i += 1
            code = []
            while i < n and not lines[i].startswith("```"):
                code.append(lines[i])
                i += 1
            if i == n:
                raise ManError("%s: unterminated ``` block" % path)
            i += 1
            out += [".PP", ".in +4n", ".EX"]
            for c in code:
                c = esc_literal(c.replace("\t", "        "))
                out.append(("\\&" + c) if c.startswith((".", "'")) else c)
            out += [".EE", ".in"]
        elif line.startswith("### "):
            flush_para()
            out.append(".SS " + esc(line[4:].strip()))
            i += 1
        elif line.startswith("- "):
            flush_para()
            item = [line[2:]]
            i += 1
            while i < n and lines[i].startswith("  ") and lines[i].strip():
                item.append(lines[i])
                i += 1
            out.append(".IP \\(bu 2")
            out.extend(text_line(l) for l in item)
        elif i + 1 < n and lines[i + 1].startswith(": "):
            flush_para()
            out.append(".TP")
            out.append(text_line(line))
            i += 1
            body = [lines[i][2:]]
            i += 1
            while i < n and lines[i].startswith("  ") and lines[i].strip():
                body.append(lines[i])
                i += 1
            out.extend(text_line(l) for l in body)
        else:
            para.append(line)
            i += 1
    flush_para()
    # the first paragraph of a section needs no .PP
    if out and out[0] == ".PP":
        out.pop(0)
    return out


def render_errors(page):
    body = page.section_lines("ERRORS")
    errors = page.errors()
    out = []
    prose = [l for l in body if not re.match(r"^- \S+?:", l) and not l.startswith("  ")]
    items = []
    for line in body:
        if re.match(r"^- \S+?:", line):
            items.append([line])
        elif line.startswith("  ") and items and line.strip():
            items[-1].append(line)
    out += render_blocks(prose, page.path)
    for (code, _), item in zip(errors, items):
        text = re.sub(r"^- \S+?:\s*", "", item[0])
        out.append(".TP")
        out.append(".B " + code)
        out.extend(text_line(l) for l in [text] + item[1:] if l.strip())
    return out


def synopsis_lines(proto):
    """.BI lines of a prototype: the header's layout, parameter names in italics."""
    names = set()
    for p in proto.params():
        m = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", p)
        if m and len(p.split()) > 1:
            names.add(m.group(1))
    out = []
    for no, line in enumerate(proto.text.split("\n")):
        line = line.strip()
        if no:
            line = "    " + line
        segs, pos = [], 0  # bold, italic, bold, ... bold
        for m in re.finditer(r"\b(\w+)(?=\s*(?:\[[^\]]*\])?\s*[,)])", line):
            if m.group(1) in names:
                segs.append(line[pos:m.start()])
                segs.append(m.group(1))
                pos = m.end()
        segs.append(line[pos:])
        if len(segs) > 1 and not segs[-1]:
            segs.pop()
        out.append(".BI " + " ".join('"%s"' % s for s in segs))
    return out


def th_date(paths):
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        stamp = int(epoch)
    else:
        stamp = max(os.path.getmtime(p) for p in paths)
    return time.strftime("%Y-%m-%d", time.gmtime(stamp))


def render(page, header, version):
    title = page.name.upper()
    date = th_date([page.path, header.path])
    out = [
        '.\\" SPDX-License-Identifier: BSD-3-Clause',
        '.\\" Generated from %s and librpma.h: do not edit.' % os.path.basename(page.path),
        '.TH "%s" "%s" "%s" "rpma %s" "rpma manual"'
        % (title, page.section, date, version),
    ]
    out += [".SH NAME", "%s \\- %s" % (esc_literal(page.name), inline(page.summary))]
    if page.section == "3":
        if page.name not in header.protos:
            raise ManError("%s: %s is not declared in librpma.h" % (page.path, page.name))
        out += [".SH SYNOPSIS", ".nf", ".B #include <librpma.h>"]
        for text in header.synopsis(page.name):
            out.append(".PP")
            if text is header.protos[page.name].text:
                out += synopsis_lines(header.protos[page.name])
            else:
                out += [".B \"%s\"" % l.replace("\t", "    ") for l in text.split("\n")]
        out += [".fi", ".PP", "Link with", ".IR \\-lrpma ."]
        for title_ in SECTIONS_3:
            body = page.section_lines(title_)
            if body is None:
                continue
            out.append(".SH " + ('"%s"' % title_ if " " in title_ else title_))
            if title_ == "ERRORS":
                out += render_errors(page)
            elif title_ == "SEE ALSO":
                refs = " ".join(l.strip() for l in body if l.strip())
                items = [r.strip() for r in refs.split(",") if r.strip()]
                for k, r in enumerate(items):
                    m = re.match(r"^([a-z][a-z0-9_]*)\(([1-8])\)$", r)
                    if not m:
                        raise ManError("%s: SEE ALSO entry '%s' is not name(section)" % (page.path, r))
                    out.append(".BR %s (%s)%s" % (m.group(1), m.group(2),
                                                  "," if k + 1 < len(items) else ""))
            else:
                out += render_blocks(body, page.path)
    else:
        for title_, body in page.sections:
            out.append(".SH " + ('"%s"' % title_ if " " in title_ else title_))
            out += render_blocks(body, page.path)
    return "\n".join(out) + "\n"


# ------------------------------------------------------- reading troff back

def troff_to_text(line):
    """Plain text of one troff line (macro arguments joined as the macro would)."""
    if line.startswith((".B ", ".I ", ".BI ", ".IB ", ".BR ", ".RB ", ".IR ", ".RI ")):
        macro, _, rest = line.partition(" ")
        args = re.findall(r'"((?:[^"]|"")*)"|(\S+)', rest)
        words = [a if a or not b else b for a, b in args]
        if macro in (".B", ".I"):
            text = " ".join(words)
        else:
            text = "".join(words)
    elif line.startswith("."):
        return None
    else:
        text = line
    text = re.sub(r"\\f[BIRP]", "", text)
    text = text.replace("\\-", "-").replace("\\%", "").replace("\\e", "\\").replace("\\&", "")
    return text


def page_synopsis(troff_text):
    """The SYNOPSIS of a generated page, as plain text lines."""
    lines = troff_text.split("\n")
    out, inside = [], False
    for line in lines:
        if line.startswith(".SH"):
            inside = line.split(None, 1)[1].strip('"') == "SYNOPSIS"
            continue
        if inside:
            t = troff_to_text(line)
            if t is not None:
                out.append(t)
    return out
