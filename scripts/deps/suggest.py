# SPDX-License-Identifier: GPL-2.0
"""Which Debian package would provide a requirement this machine lacks.

Exact when it can be: apt-file (if installed with its indexes), else a
candidate package whose .deb is in apt's cache and ships the file. Else a
guess from Debian's naming habits (libfoo-dev for foo.pc, python3-foo for
import foo), checked to name a package apt knows.
"""

import re
import subprocess

from debian import apt_file_search, cached_deb_ships


def _pattern_and_names(req):
    """A regular expression for the file's path inside a package, and
    package names worth trying, for one requirement."""
    n = req.name
    esc = re.escape(n)
    if req.kind == 'pkg-config':
        bases = {n, re.sub(r'\.0$', '', n), re.sub(r'[-.]?[0-9.]+$', '', n)}
        names = [f'{b}-dev' for b in bases] + \
            [f'lib{b}-dev' for b in bases if not b.startswith('lib')]
        return rf'/pkgconfig/{esc}\.pc$', names
    if req.kind == 'header':
        first = re.sub(r'\.h$', '', n.split('/')[0])
        base = first[3:] if first.startswith('lib') else first
        return rf'^/usr/include/(.*/)?{esc}$', [f'lib{base}-dev',
                                                 f'{base}-dev']
    if req.kind == 'library':
        return rf'/lib{esc}\.(so|a)$', [f'lib{n}-dev', f'{n}-dev']
    if req.kind == 'python-module':
        return (rf'/(dist|site)-packages/{esc}(/__init__\.py|\.py|\..*\.so)$',
                [f'python3-{n}', f'python3-{n.lower()}'])
    if req.kind == 'program':
        prog = n.rsplit('/', 1)[-1]
        names = [prog, re.sub(r'[-_.][^-_.]*$', '', prog)]
        return rf'/s?bin/{re.escape(prog)}$', names
    return rf'^{esc}$', []


def known_packages(names):
    """Those of names apt's lists know (one apt-cache call)."""
    names = sorted(set(names))
    if not names:
        return set()
    res = subprocess.run(['apt-cache', 'show', '--no-all-versions'] + names,
                         capture_output=True, text=True)
    return set(re.findall(r'^Package: (\S+)', res.stdout, re.M))


def suggest(reqs):
    """{requirement key: text naming the package(s) to add}."""
    plans = {r.key: _pattern_and_names(r) for r in reqs}
    known = known_packages(n for _p, names in plans.values() for n in names)
    out = {}
    for req in reqs:
        pattern, names = plans[req.key]
        exact = apt_file_search(pattern)
        if exact:
            out[req.key] = ('provided by ' + ' or '.join(sorted(set(exact))) +
                            ' (apt-file)')
            continue
        candidates = [n for n in dict.fromkeys(names) if n in known]
        shipped = None
        for cand in candidates:
            path = cached_deb_ships(cand, pattern)
            if path:
                shipped = f'provided by {cand} (its .deb in apt\'s cache ' \
                          f'ships {path})'
                break
        if shipped:
            out[req.key] = shipped
        elif candidates:
            out[req.key] = ('probably ' + ' or '.join(candidates) +
                            ' (a package of that name exists; check that it '
                            'ships it, e.g. with apt-file)')
        else:
            out[req.key] = ('find the package that ships it (apt-file '
                            'search, or packages.debian.org)')
    return out


def package_of(text):
    """The package named by a suggestion, if it names exactly one."""
    m = re.match(r'provided by (\S+) \(', text)
    if m:
        return m.group(1)
    m = re.match(r'probably (\S+) \(', text)
    return m.group(1) if m else None
