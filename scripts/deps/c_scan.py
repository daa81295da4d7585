# SPDX-License-Identifier: GPL-2.0
"""What C sources use: #include <...> headers (those the project does not
provide itself) and the programs they run by name (execlp/execvp with a
literal name; system/popen with a literal command, read as shell code).
"""

import re

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*<([^>\s]+)>', re.M)
EXEC = re.compile(r'\b(?:execlp|execvp|execvpe)\s*\(\s*"([^"\\]+)"')
SHELL = re.compile(r'\b(?:system|popen)\s*\(\s*"((?:[^"\\\n]|\\.)*)"')


TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|'
                    r'/\*.*?\*/|//[^\n]*', re.S)


def strip_comments(text):
    """C text with comments blanked (newlines kept, strings untouched)."""
    def blank(m):
        tok = m.group(0)
        return tok if tok[0] in '"\'' else re.sub(r'[^\n]', ' ', tok)
    return TOKENS.sub(blank, text)


def _line(text, pos):
    return text.count('\n', 0, pos) + 1


def scan(path, text, context, internal, reqs, shell, header_context):
    """path: the file, relative to the root; context: where its programs
    run; header_context: "module" for the kernel module's sources (their
    headers may come from the kernel's), else "host"; internal(name,
    path): whether the project has that header."""
    text = strip_comments(text)
    for m in INCLUDE.finditer(text):
        name = m.group(1)
        if not internal(name, path):
            reqs.add('header', name, header_context,
                     f'{path}:{_line(text, m.start())}')
    for m in EXEC.finditer(text):
        name = m.group(1)
        if '/' not in name:
            shell.calls.append((context, name,
                                f'{path}:{_line(text, m.start())}'))
    for m in SHELL.finditer(text):
        code = re.sub(r'\\(.)', r'\1', m.group(1))
        where = f'{path}:{_line(text, m.start())}'
        shell.add(code, context, path, lambda _line, w=where: w)
