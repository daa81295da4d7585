# SPDX-License-Identifier: GPL-2.0
"""The Debian side: which installed package owns a file, which packages a
list of packages brings in, which package could provide a missing file.
"""

import glob
import os
import re
import shutil
import subprocess

# Paths dpkg may know a file by on a merged-/usr system.
MERGED = ('/bin/', '/sbin/', '/lib/', '/lib64/')
ARCHIVES = '/var/cache/apt/archives'


def _usr_twin(path):
    for top in MERGED:
        if path.startswith(top):
            return '/usr' + path
        if path.startswith('/usr' + top):
            return path[4:]
    return None


class Dpkg:
    def __init__(self):
        fmt = ('${Package}\\t${db:Status-Abbrev}\\t${Essential}\\t'
               '${Priority}\\t${Pre-Depends}\\t${Depends}\\t${Provides}\\n')
        out = subprocess.run(['dpkg-query', '-W', '-f', fmt],
                             capture_output=True, text=True, check=True).stdout
        self.installed = {}         # package -> [dependency groups]
        self.base = set()           # Essential or Priority: required
        self.providers = {}         # virtual package -> installed providers
        for line in out.splitlines():
            name, status, essential, prio, pre, deps, provides = \
                line.split('\t')
            if not status.startswith('ii'):
                continue
            self.installed[name] = _groups(pre) + _groups(deps)
            if essential == 'yes' or prio == 'required':
                self.base.add(name)
            for group in _groups(provides):
                for virtual in group:
                    self.providers.setdefault(virtual, set()).add(name)
        self._owner_cache = {}

    def closure(self, roots):
        """roots and everything they depend on, as installed here: of the
        alternatives of a dependency, the first one installed."""
        seen = set()
        todo = [r for r in roots if r in self.installed]
        while todo:
            pkg = todo.pop()
            if pkg in seen:
                continue
            seen.add(pkg)
            for group in self.installed.get(pkg, []):
                for alt in group:
                    if alt in self.installed:
                        todo.append(alt)
                        break
                    if alt in self.providers:
                        todo.extend(self.providers[alt])
                        break
        return seen

    def owners(self, paths):
        """{path: set of packages} for each path some package ships; a
        path is also looked up by its other name on a merged-/usr system
        and, if it is a symbolic link (alternatives), by its target."""
        tries = {}
        for path in paths:
            if path in self._owner_cache:
                continue
            names = []
            p = path
            for _ in range(8):
                names.append(p)
                twin = _usr_twin(p)
                if twin:
                    names.append(twin)
                if not os.path.islink(p):
                    break
                p = os.path.normpath(os.path.join(os.path.dirname(p),
                                                  os.readlink(p)))
            tries[path] = names
        queries = sorted({n for names in tries.values() for n in names})
        found = {}
        if queries:
            res = subprocess.run(['dpkg-query', '-S'] + queries,
                                 capture_output=True, text=True)
            for line in res.stdout.splitlines():
                if line.startswith('diversion by'):
                    continue
                pkgs, sep, path = line.partition(': ')
                if sep:
                    found[path] = {p.strip().split(':')[0]
                                   for p in pkgs.split(',')}
        for path, names in tries.items():
            self._owner_cache[path] = next(
                (found[n] for n in names if n in found), set())
        return {p: self._owner_cache[p] for p in paths}

    def in_every_system(self, package):
        """Whether the archive (apt's lists) says every Debian system has
        package (Essential, or Priority: required, what mmdebstrap's
        minbase installs). dpkg's own record may say less: it keeps the
        .deb's priority (apt's is "important" there, "required" in the
        archive)."""
        if package in self.base:
            return True
        res = subprocess.run(['apt-cache', 'show', '--no-all-versions',
                              package], capture_output=True, text=True)
        fields = dict(line.split(': ', 1) for line in res.stdout.splitlines()
                      if ': ' in line and not line.startswith(' '))
        return (fields.get('Essential') == 'yes' or
                fields.get('Priority') == 'required')


def _groups(field):
    """A Depends-style field as lists of alternative package names."""
    out = []
    for group in field.split(','):
        alts = []
        for alt in group.split('|'):
            name = re.sub(r'\(.*?\)|\[.*?\]|<.*?>', '', alt).strip()
            name = name.split(':')[0]
            if name:
                alts.append(name)
        if alts:
            out.append(alts)
    return out


def package_exists(name):
    """Whether apt knows a package of that name (local lists only)."""
    res = subprocess.run(['apt-cache', 'show', '--no-all-versions', name],
                         capture_output=True, text=True)
    return res.returncode == 0 and res.stdout.strip() != ''


def cached_deb_ships(package, pattern):
    """The path in a .deb of package in apt's cache matching the regular
    expression pattern, or None (or if no such .deb is cached)."""
    debs = sorted(glob.glob(f'{ARCHIVES}/{package}_*.deb'))
    if not debs:
        return None
    res = subprocess.run(['dpkg-deb', '--fsys-tarfile', debs[-1]],
                         capture_output=True)
    if res.returncode != 0:
        return None
    listing = subprocess.run(['tar', '-t'], input=res.stdout,
                             capture_output=True).stdout.decode()
    for line in listing.splitlines():
        path = line[1:] if line.startswith('.') else line
        if re.search(pattern, path):
            return path
    return None


def apt_file_search(pattern):
    """Packages apt-file finds for a regular expression over paths (only
    if apt-file is installed and has its contents indexes)."""
    if not shutil.which('apt-file'):
        return []
    # Optional: not a dependency.
    cmd = ['apt-file', 'search', '-l', '-x', pattern]  # check-deps: ignore
    res = subprocess.run(cmd, capture_output=True, text=True)
    return res.stdout.split() if res.returncode == 0 else []
