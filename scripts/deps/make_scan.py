# SPDX-License-Identifier: GPL-2.0
"""What Makefiles use: pkg-config modules, -l libraries (and what -m32
needs), the programs of their recipes and $(shell ...) calls.

Make variables are expanded with every value the Makefile (and the .mk
files it includes) assigns them, whatever the conditionals around the
assignments: a requirement of any branch is a requirement. Make functions
are not evaluated (their result is opaque), but $(shell ...) calls inside
them are read. Recipes and $(shell ...) text go to the shell scanner.
"""

import os
import re

from shell_scan import OPAQUE

ASSIGN = re.compile(r'^\s*(?:override\s+|export\s+)*([A-Za-z0-9_.-]+)\s*'
                    r'(?:::=|:::=|:=|\+=|\?=|!=|=)\s*(.*)$')
INCLUDE = re.compile(r'^\s*-?include\s+(.*)$')
RULE = re.compile(r'^[^\s=#][^=]*?:(?!=)')
LIBRARY = re.compile(r'(?:^|\s)-l([A-Za-z0-9_+.-]+)')
# What gcc -m32 needs besides gcc: 32-bit libc headers and libgcc.
M32 = re.compile(r'(?:^|\s)-m32(?:\s|$)')
M32_FILES = ('/usr/include/x86_64-linux-gnu/gnu/stubs-32.h',
             '/usr/lib/gcc/x86_64-linux-gnu/*/32/libgcc.a')
# Variables make defines itself.
DEFAULTS = {'CC': 'cc', 'CXX': 'g++', 'CPP': 'cc -E', 'AR': 'ar',
            'AS': 'as', 'LD': 'ld', 'MAKE': 'make', 'RM': 'rm -f'}


def logical_lines(text):
    """(first line number, text, is recipe) for each line, continuations
    joined. A line starting with a tab after a rule is a recipe line. The
    body of a define block is read as the text $(eval) would see ($$
    becomes $): its rules and recipes count as any others."""
    out = []
    in_rule = False
    in_define = False
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        start = i
        line = lines[i]
        while line.endswith('\\') and i + 1 < len(lines):
            i += 1
            line = line[:-1] + ' ' + lines[i].lstrip('\t')
        i += 1
        word = line.strip().split(' ')[0]
        if not line.startswith('\t') and word in ('define', 'endef'):
            in_define = word == 'define'
            in_rule = False
            continue
        if in_define:
            line = line.replace('$$', '$')
        recipe = line.startswith('\t') and in_rule
        if not recipe:
            line = _strip_comment(line)
            if RULE.match(line) and not ASSIGN.match(line):
                in_rule = True
            elif ASSIGN.match(line):
                in_rule = False
        out.append((start + 1, line, recipe))
    return out


def _strip_comment(line):
    m = re.search(r'(?<!\\)#', line)
    return line[:m.start()] if m else line


class Makefile:
    def __init__(self, root, path, scanner, reqs):
        self.root = root
        self.path = path                # relative to root
        self.scanner = scanner
        self.reqs = reqs
        self.vars = {}
        self.lines = []                 # (file, line, text, is recipe)
        self._read(path, set())

    def _read(self, path, seen):
        full = os.path.join(self.root, path)
        if path in seen or not os.path.isfile(full):
            return
        seen.add(path)
        with open(full, encoding='utf-8', errors='replace') as f:
            text = f.read()
        for num, line, recipe in logical_lines(text):
            self.lines.append((path, num, line, recipe))
            if recipe:
                continue
            m = ASSIGN.match(line)
            if m:
                self.vars.setdefault(m.group(1), []).append(m.group(2))
                continue
            m = INCLUDE.match(line)
            if m:
                for inc in m.group(1).split():
                    if '$' in inc:
                        continue
                    rel = os.path.normpath(os.path.join(os.path.dirname(path),
                                                        inc))
                    if not rel.startswith('..'):
                        self._read(rel, seen)

    def expand(self, text, where, active=()):
        """text with variables replaced. The $(shell ...) calls written in
        text itself (not those in the variables it refers to, which are
        scanned where they are assigned) go to the shell scanner."""
        out = []
        i = 0
        while i < len(text):
            c = text[i]
            if c != '$' or i + 1 >= len(text):
                out.append(c)
                i += 1
                continue
            nxt = text[i + 1]
            if nxt == '$':
                out.append('$')
                i += 2
                continue
            if nxt not in '({':
                out.append(OPAQUE)      # $@, $<, $^...
                i += 2
                continue
            end = _matching(text, i + 1)
            inner = text[i + 2:end]
            i = end + 1
            out.append(self._reference(inner, where, active))
        return ''.join(out)

    def _reference(self, inner, where, active):
        m = re.match(r'^([A-Za-z0-9_.-]+)$', inner)
        if m:
            name = m.group(1)
            if name in active:
                return ''       # VAR := ... $(VAR): the earlier values
            if name in self.vars:
                return ' '.join(self.expand(v, None, active + (name,))
                                for v in self.vars[name])
            return DEFAULTS.get(name, OPAQUE)
        func, _, args = inner.partition(' ')
        args = self.expand(args, where, active)
        if func == 'shell' and where:
            self.scanner.add(args, 'host', where.rsplit(':', 1)[0],
                             lambda _line: where)
        return OPAQUE

    def scan(self):
        """Queue this file's recipes and $(shell ...) calls for the shell
        scanner, note its libraries. Included files give their variables
        only: each is scanned on its own."""
        for path, num, line, recipe in self.lines:
            if path != self.path:
                continue
            where = f'{path}:{num}'
            if recipe:
                cmd = self.expand(line.lstrip('\t').lstrip('@+- '), where)
                self.scanner.add(cmd, 'host', path, lambda _l, w=where: w)
                if re.search(r'\b(cc|gcc|ld)\b|\$\((CC|LD)\)', line):
                    self._libraries(cmd, where)
                continue
            m = ASSIGN.match(line)
            if m:
                self._libraries(self.expand(m.group(2), where), where)
                continue
            self.expand(line, where)

    def _libraries(self, text, where):
        for lib in LIBRARY.findall(text):
            if OPAQUE not in lib:
                self.reqs.add('library', lib, 'host', where)
        if M32.search(text):
            for path in M32_FILES:
                self.reqs.add('file', path, 'host', where)


def _matching(text, open_at):
    """Index of the bracket closing the one at open_at."""
    pair = {'(': ')', '{': '}'}
    want = pair[text[open_at]]
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == text[open_at]:
            depth += 1
        elif text[j] == want:
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1
