# SPDX-License-Identifier: GPL-2.0
"""Where this machine provides each requirement: the file that satisfies
it (a .pc file, a header, a library, a program, a Python module), found
the way the build or the shell would find it, but only in the system's
own directories (never $PKG_CONFIG_PATH, /usr/local or the caller's
$PATH: what is there was not installed by a Debian package).
"""

import glob
import json
import os
import re
import shutil
import subprocess

SYSTEM_PATH = ['/usr/sbin', '/usr/bin', '/sbin', '/bin']
PYTHON = '/usr/bin/python3'


class Found:
    """Files that satisfy a requirement (any one will do), or why none."""

    def __init__(self, paths=(), detail=None):
        self.paths = list(paths)
        self.detail = detail


def _run(cmd, **kw):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, **kw)
    except FileNotFoundError:
        return None


def _pkg_config(*args):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith('PKG_CONFIG')}
    return _run(['pkg-config'] + list(args), env=env)


def gcc_include_dirs():
    res = _run(['gcc', '-xc', '-E', '-v', '-'], input='')
    if res is None:
        return []
    m = re.search(r'#include <\.\.\.> search starts here:\n(.*?)\nEnd of',
                  res.stderr, re.S)
    return [d.strip() for d in m.group(1).splitlines()] if m else []


def kernel_include_dirs():
    """Header directories of every installed kernel's headers, the way
    Kbuild searches them."""
    dirs = []
    for build in sorted(glob.glob('/lib/modules/*/build')):
        source = os.path.join(os.path.dirname(build), 'source')
        for top in (source, build):
            for sub in ('include', 'arch/x86/include', 'include/uapi',
                        'arch/x86/include/uapi', 'arch/x86/include/generated',
                        'arch/x86/include/generated/uapi'):
                d = os.path.realpath(os.path.join(top, sub))
                if os.path.isdir(d) and d not in dirs:
                    dirs.append(d)
    return dirs


class Resolver:
    def __init__(self):
        self.include_dirs = gcc_include_dirs()
        self.kernel_dirs = None

    def pkg_config(self, module):
        """Found, and the modules it requires (to be checked too)."""
        res = _pkg_config('--print-errors', '--exists', module)
        if res is None:
            return Found(detail='pkg-config is not installed'), []
        if res.returncode != 0:
            # pkgconf's last line says what is missing (and what wanted it).
            lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
            msg = lines[-1] if lines else 'not found'
            return Found(detail=f'pkg-config: {msg}'), []
        path = _pkg_config('--path', module).stdout.strip()
        flags = _pkg_config('--cflags-only-I', module).stdout.split()
        for flag in flags:
            d = flag[2:]
            if d not in self.include_dirs:
                self.include_dirs.append(d)
        req = _pkg_config('--print-requires', '--print-requires-private',
                          module).stdout.split('\n')
        requires = [r.split()[0] for r in req if r.strip()]
        return Found([path] if path else []), requires

    def header(self, name, module_source):
        """A module source's headers come from the kernel's first."""
        dirs = list(self.include_dirs)
        if module_source:
            if self.kernel_dirs is None:
                self.kernel_dirs = kernel_include_dirs()
            dirs = self.kernel_dirs + dirs
        for d in dirs:
            path = os.path.join(d, name)
            if os.path.isfile(path):
                return Found([os.path.normpath(path)])
        return Found(detail='not in ' + ' '.join(dirs) if dirs else
                     'no compiler to ask for the include path')

    def library(self, name):
        for suffix in ('.so', '.a'):
            res = _run(['gcc', f'-print-file-name=lib{name}{suffix}'])
            if res is None:
                return Found(detail='gcc is not installed')
            path = res.stdout.strip()
            if os.path.isabs(path) and os.path.exists(path):
                return Found([os.path.normpath(path)])
        return Found(detail=f'gcc finds no lib{name}.so or lib{name}.a')

    def program(self, name):
        if name.startswith('/'):
            if os.path.exists(name):
                return Found([name])
            return Found(detail=f'no {name}')
        for d in SYSTEM_PATH:
            path = os.path.join(d, name)
            if os.access(path, os.X_OK) and not os.path.isdir(path):
                return Found([path])
        elsewhere = shutil.which(name)
        if elsewhere:
            return Found([elsewhere])
        return Found(detail='not in ' + ':'.join(SYSTEM_PATH))

    def file(self, pattern):
        if re.search(r'[*?[]', pattern):
            paths = sorted(glob.glob(pattern))
            return Found(paths, None if paths else 'nothing matches')
        if os.path.exists(pattern):
            return Found([pattern])
        return Found(detail='does not exist')

    def python_modules(self, names):
        """{name: Found} using Debian's python3 in isolated mode (no user
        site, no PYTHONPATH)."""
        code = ('import importlib.util, json, sys\n'
                'out = {}\n'
                'for n in sys.argv[1:]:\n'
                '    try:\n'
                '        s = importlib.util.find_spec(n)\n'
                '    except Exception:\n'
                '        s = None\n'
                '    out[n] = None if s is None else (s.origin or "")\n'
                'print(json.dumps(out))\n')
        res = _run([PYTHON, '-I', '-c', code] + sorted(names))
        if res is None or res.returncode != 0:
            return {n: Found(detail=f'{PYTHON} is not installed')
                    for n in names}
        out = {}
        for name, origin in json.loads(res.stdout).items():
            if origin is None:
                out[name] = Found(detail=f'{PYTHON} cannot import it')
            elif origin in ('', 'built-in', 'frozen'):
                out[name] = Found([PYTHON])     # part of the interpreter
            else:
                out[name] = Found([origin])
        return out
