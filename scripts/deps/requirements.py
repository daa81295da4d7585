# SPDX-License-Identifier: GPL-2.0
"""What the sources need from the system, as found by the scanners.

A requirement is a kind, a name and a context: "host" for what the build,
the scripts and the host tests use, "module" for headers of the kernel
module's sources (they may come from an installed kernel's headers),
"guest" for what runs inside the test VM (there only busybox and what
scripts/mkinitramfs carries exist).
"""

import os

# A source line that carries this is not a requirement (say why next to
# it): a path named only to be created, a program used only if present.
IGNORE_MARK = 'check-deps: ignore'

# Kinds of requirement, with how a report names them.
KINDS = {
    'pkg-config': 'pkg-config module',
    'header': 'header',
    'library': 'library',
    'program': 'program',
    'file': 'file',
    'python-module': 'python3 module',
}


class Requirement:
    def __init__(self, kind, name, context):
        self.kind = kind
        self.name = name
        self.context = context
        self.where = []         # "file:line", in the order found

    @property
    def key(self):
        return (self.kind, self.name, self.context)

    def describe(self):
        if self.kind == 'header':
            what = f'header <{self.name}>'
        elif self.kind == 'library':
            what = f'library -l{self.name}'
        else:
            what = f'{KINDS[self.kind]} {self.name}'
        if self.context == 'guest':
            what = 'guest ' + what
        elif self.context == 'module':
            what = 'module ' + what
        return what

    def places(self, most=3):
        shown = ', '.join(self.where[:most])
        more = len(self.where) - most
        return shown + (f' and {more} more' if more > 0 else '')


class Requirements:
    """Requirements by (kind, name, context), each with every place found."""

    def __init__(self, root):
        self.root = root
        self._items = {}
        self._lines = {}
        self.problems = []      # sources the scanners could not read

    def _ignored(self, where):
        path, _, line = where.rpartition(':')
        if not line.isdigit():
            return False
        if path not in self._lines:
            try:
                with open(os.path.join(self.root, path),
                          encoding='utf-8') as f:
                    self._lines[path] = f.read().split('\n')
            except (OSError, UnicodeDecodeError):
                self._lines[path] = []
        lines = self._lines[path]
        n = int(line)
        return 0 < n <= len(lines) and IGNORE_MARK in lines[n - 1]

    def add(self, kind, name, context, where):
        """The requirement (None if its source line says to ignore it)."""
        assert kind in KINDS, kind
        if self._ignored(where):
            return None
        req = Requirement(kind, name, context)
        req = self._items.setdefault(req.key, req)
        if where not in req.where:
            req.where.append(where)
        return req

    def problem(self, where, message):
        """A construct whose requirements cannot be known: an error, since
        a check that silently misses a dependency is what this replaces."""
        self.problems.append(f'{where}: {message}')

    def __iter__(self):
        return iter(sorted(self._items.values(), key=lambda r: r.key))

    def __len__(self):
        return len(self._items)
