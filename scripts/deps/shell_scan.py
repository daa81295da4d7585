# SPDX-License-Identifier: GPL-2.0
"""Programs, pkg-config modules and system files used by shell code.

The shell code is parsed by shfmt (its syntax tree as JSON), so quoting,
here-documents, command substitutions and functions are read the way the
shell reads them. Every command word that is a literal name is a program
requirement, looking through wrappers (timeout, flock, xargs, env, sh -c,
scripts/vm's guest command...). Names defined as functions anywhere in
the same context, shell builtins and the project's own programs are
dropped later, when every file has been read (see ShellScanner.finish).
"""

import json
import re
import subprocess

# Builtins and keywords of bash and busybox sh: never programs.
BUILTINS = set('''
    . : [ alias bg bind break builtin caller case cd command compgen complete
    compopt continue declare dirs disown echo enable eval exec exit export
    false fc fg getopts hash help history jobs kill let local logout mapfile
    popd printf pushd pwd read readarray readonly return set shift shopt
    source suspend test times trap true type typeset ulimit umask unalias
    unset wait
'''.split())

# Wrappers that run another command: options that take a value, and how
# many operands come before the command.
WRAPPERS = {
    'exec': ({'-a'}, 0),
    'nohup': (set(), 0),
    'setsid': (set(), 0),
    'nice': ({'-n', '--adjustment'}, 0),
    'ionice': ({'-c', '-n', '-p', '-P', '-u', '--class', '--classdata'}, 0),
    'stdbuf': ({'-i', '-o', '-e'}, 0),
    'timeout': ({'-k', '-s', '--kill-after', '--signal'}, 1),
    'flock': ({'-w', '-E', '--timeout', '--wait', '--conflict-exit-code'}, 1),
    'env': ({'-u', '-C', '--unset', '--chdir'}, 0),
    'xargs': ({'-n', '-L', '-P', '-I', '-d', '-a', '-s', '-E', '--max-args',
               '--max-lines', '--max-procs', '--delimiter', '--arg-file',
               '--max-chars', '--eof'}, 0),
    'sudo': ({'-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U'}, 0),
    'unshare': ({'-S', '-G', '--setuid', '--setgid'}, 0),
    'taskset': (set(), 1),
}
SHELLS = {'sh', 'bash', 'dash', 'ash'}
# Options of scripts/vm that take a value (its command follows them).
VM_OPTS_WITH_VALUE = {'-k', '-t', '-o', '-m', '-c', '-a', '-A', '-Q'}

# Absolute paths of files the system must provide (a literal word that
# starts with one of these is a file requirement).
SYSTEM_PATH = re.compile(
    r'^/(usr/(bin|sbin|lib|lib64|libexec|share|src|include)|bin|sbin|lib|'
    r'lib64|boot)/[^\s]+$')
PROGRAM_NAME = re.compile(r'^[A-Za-z0-9_][A-Za-z0-9_.+-]*$')
# Text make expands to something unknown; words holding it are not literal.
OPAQUE = '__fnblk_expansion__'


class ParseError(Exception):
    pass


def parse(text, dialect='bash'):
    """shfmt's syntax tree of a shell program."""
    try:
        res = subprocess.run(['shfmt', '-ln', dialect, '--to-json'],
                             input=text, capture_output=True, text=True)
    except FileNotFoundError:
        raise SystemExit('check-deps: shfmt is needed to read shell scripts '
                         '(package shfmt; run scripts/install-deps)')
    if res.returncode != 0:
        raise ParseError(res.stderr.strip().replace('<standard input>:', ''))
    return json.loads(res.stdout)


def _unescape(lit):
    return re.sub(r'\\(.)', r'\1', lit)


def word_literal(word):
    """The value of a word without expansions, else None."""
    out = ''
    for part in word.get('Parts', []):
        kind = part.get('Type')
        if kind == 'Lit':
            out += _unescape(part.get('Value', ''))
        elif kind == 'SglQuoted':
            out += part.get('Value', '')
        elif kind == 'DblQuoted':
            inner = word_literal(part)
            if inner is None:
                return None
            out += inner
        else:
            return None
    if OPAQUE in out:
        return None
    return out


def word_suffix(word):
    """The literal text at the end of a word (after its last expansion)."""
    out = ''
    for part in reversed(word.get('Parts', [])):
        kind = part.get('Type')
        if kind == 'Lit':
            out = _unescape(part.get('Value', '')) + out
        elif kind == 'SglQuoted':
            out = part.get('Value', '') + out
        elif kind == 'DblQuoted':
            inner = word_suffix(part)
            out = inner + out
            if word_literal(part) is None:
                break
        else:
            break
    return out.split(OPAQUE)[-1]


def _is_sudo_param(word):
    """An unquoted $SUDO-like variable that prefixes a command."""
    parts = word.get('Parts', [])
    return (len(parts) == 1 and parts[0].get('Type') == 'ParamExp' and
            'sudo' in parts[0].get('Param', {}).get('Value', '').lower())


class ShellScanner:
    """Collects shell code with add(), parses all of it at once in run()
    (one shfmt call: each piece becomes the body of a function)."""

    def __init__(self, reqs):
        self.reqs = reqs
        self.functions = set()  # shell functions, whichever file has them
        self.calls = []         # (context, name, where)
        self._queue = []        # (text, context, origin, lines)

    def add(self, text, context, origin, lines=None):
        """Queue shell code: origin names its file, lines maps its line
        numbers to "file:line" (default: origin:line)."""
        self._queue.append((text, context, origin, lines))

    def run(self):
        while self._queue:
            pieces, self._queue = self._queue, []
            try:
                self._parse_together(pieces)
            except ParseError:
                for piece in pieces:
                    try:
                        self._parse_together([piece])
                    except ParseError as e:
                        self.reqs.problem(piece[2], 'shfmt cannot parse '
                                          f'this shell code: {e}')

    def _parse_together(self, pieces):
        text = []
        starts = []
        line = 0
        for n, (code, *_rest) in enumerate(pieces):
            text.append(f'__fnblk_piece_{n}() {{')
            starts.append(line + 1)
            text.append(code)
            line += 3 + code.count('\n')
            text.append('}')
        tree = parse('\n'.join(text) + '\n')
        for stmt in tree.get('Stmts', []):
            decl = stmt.get('Cmd', {})
            n = int(decl['Name']['Value'].rsplit('_', 1)[1])
            code, context, origin, lines = pieces[n]
            self._walk(decl['Body'], context, origin, lines, starts[n])

    def _walk(self, node, context, origin, lines, start):
        def where(node):
            line = node.get('Pos', {}).get('Line', 0) - start
            return lines(line) if lines else f'{origin}:{line}'

        def walk(node, in_param):
            if isinstance(node, list):
                for n in node:
                    walk(n, in_param)
                return
            if not isinstance(node, dict) or 'Offset' in node:
                return          # a position
            kind = node.get('Type')
            if kind == 'CallExpr':
                self._call(node.get('Args', []), context, where(node))
            elif kind == 'FuncDecl':
                self.functions.add(node['Name']['Value'])
            elif kind == 'CmdSubst':
                in_param = False
            elif kind == 'ParamExp':
                in_param = True     # ${v#/usr/...}: a pattern, not a file
            elif 'Parts' in node and kind is None and context == 'host' \
                    and not in_param:
                self._path(node, where(node))
            for value in node.values():
                if isinstance(value, (dict, list)):
                    walk(value, in_param)

        walk(node, False)

    def _path(self, word, where):
        lit = word_literal(word)
        if lit and SYSTEM_PATH.match(lit):
            self.reqs.add('file', lit, 'host', where)

    def _nested(self, text, context, where):
        """Shell code inside a string (sh -c, flock -c)."""
        self.add(text, context, where.rsplit(':', 1)[0], lambda _line: where)

    def _call(self, args, context, where):
        i = 0
        while i < len(args):
            word = args[i]
            name = word_literal(word)
            if name is None:
                if _is_sudo_param(word):
                    i += 1
                    continue
                if word_suffix(word).endswith('scripts/vm'):
                    self._vm(args[i + 1:], where)
                return
            if name.startswith('/'):
                if context == 'host':
                    self.reqs.add('program', name, context, where)
                else:
                    self.calls.append((context, name.rsplit('/', 1)[1],
                                       where))
                return
            if '/' in name:
                if name.endswith('scripts/vm'):
                    self._vm(args[i + 1:], where)
                return          # a file of the project
            if not PROGRAM_NAME.match(name):
                return
            rest = args[i + 1:]
            if name == 'command' or name == 'builtin':
                if rest and word_literal(rest[0]) in ('-v', '-V'):
                    return      # a probe: the script copes without
                i += 1
                while i < len(args) and word_literal(args[i]) == '-p':
                    i += 1
                continue
            if name in SHELLS:
                self.calls.append((context, name, where))
                if len(rest) >= 2 and word_literal(rest[0]) == '-c':
                    code = word_literal(rest[1])
                    if code is not None:
                        self._nested(code, context, where)
                return
            if name in WRAPPERS:
                self.calls.append((context, name, where))
                skip = self._wrapped(name, rest, context, where)
                if skip is None:
                    return
                i += 1 + skip
                continue
            if name == 'pkg-config':
                self._pkg_config(rest, where)
            self.calls.append((context, name, where))
            return

    def _wrapped(self, name, rest, context, where):
        """How many words of rest come before the wrapped command, or None
        if there is none (or it is not a plain command)."""
        with_value, operands = WRAPPERS[name]
        j = 0
        while j < len(rest):
            lit = word_literal(rest[j])
            if lit is None or not lit.startswith('-') or lit == '-':
                break
            j += 1
            if lit == '--':
                break
            if name == 'flock' and lit in ('-c', '--command') and \
                    j < len(rest):
                code = word_literal(rest[j])
                if code is not None:
                    self._nested(code, context, where)
                return None
            if lit in with_value and '=' not in lit:
                j += 1
        if name == 'env':
            while j < len(rest) and '=' in (word_literal(rest[j]) or '='):
                j += 1
        j += operands
        if name == 'flock' and j < len(rest) and \
                word_literal(rest[j]) in ('-c', '--command'):
            if j + 1 < len(rest):
                code = word_literal(rest[j + 1])
                if code is not None:
                    self._nested(code, context, where)
            return None
        return j if j < len(rest) else None

    def _pkg_config(self, args, where):
        compare = ('=', '<', '>', '<=', '>=', '!=')
        skip_next = False
        for word in args:
            lit = word_literal(word)
            if skip_next:
                skip_next = False
                continue
            if lit is None:
                self.reqs.problem(where, 'pkg-config is given a module name '
                                  'that is not written out (write the '
                                  'names literally, or in a make variable '
                                  'set in the same Makefile)')
                continue
            if lit.startswith('-'):
                continue
            if lit in compare:
                skip_next = True
                continue
            for module in lit.split():
                self.reqs.add('pkg-config', module, 'host', where)

    def _vm(self, args, where):
        """scripts/vm [options] [--] COMMAND...: COMMAND runs in the guest
        (a host script given as COMMAND is scanned as a guest file)."""
        j = 0
        while j < len(args):
            lit = word_literal(args[j])
            if lit is None or not lit.startswith('-'):
                break
            j += 1
            if lit == '--':
                break
            if lit in VM_OPTS_WITH_VALUE:
                j += 1
        if j < len(args):
            self._call(args[j:], 'guest', where)

    def finish(self, provided):
        """Turn the commands seen into program requirements, dropping
        builtins, functions and the names in provided (the project's own
        files and programs)."""
        for context, name, where in self.calls:
            if name in BUILTINS or name in self.functions or \
                    name in provided:
                continue
            self.reqs.add('program', name, context, where)
