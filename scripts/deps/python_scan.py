# SPDX-License-Identifier: GPL-2.0
"""What Python sources use: the modules they import (those the project
does not provide) and the programs they run by a literal name through
subprocess or os.exec*/os.spawn*p.
"""

import ast

RUNNERS = {'run', 'call', 'check_call', 'check_output', 'Popen',
           'execvp', 'execlp', 'execvpe', 'execlpe', 'spawnvp', 'spawnlp'}


def _runner(func):
    if isinstance(func, ast.Attribute) and func.attr in RUNNERS:
        return isinstance(func.value, ast.Name) and \
            func.value.id in ('subprocess', 'os')
    return isinstance(func, ast.Name) and func.id in RUNNERS


def _program(call):
    """The literal program a runner call starts, or None."""
    if not call.args:
        return None
    first = call.args[0]
    if isinstance(call.func, ast.Attribute) and \
            call.func.attr.startswith('spawn') and len(call.args) > 1:
        first = call.args[1]        # os.spawnvp(mode, file, args)
    if isinstance(first, (ast.List, ast.Tuple)) and first.elts:
        first = first.elts[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def _shell_code(call):
    """The command of a shell=True call with a literal string, or None."""
    shell = any(k.arg == 'shell' and isinstance(k.value, ast.Constant) and
                k.value.value for k in call.keywords)
    if shell and call.args and isinstance(call.args[0], ast.Constant) and \
            isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def scan(path, text, context, local_modules, reqs, shell):
    """local_modules: top-level names the project provides itself."""
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as e:
        reqs.problem(f'{path}:{e.lineno}', f'cannot parse: {e.msg}')
        return
    for node in ast.walk(tree):
        where = f'{path}:{getattr(node, "lineno", 0)}'
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Call) and _runner(node.func):
            code = _shell_code(node)
            if code is not None:
                shell.add(code, context, path, lambda _l, w=where: w)
                continue
            prog = _program(node)
            if prog and '/' not in prog:
                shell.calls.append((context, prog, where))
            elif prog and prog.startswith('/') and context == 'host':
                reqs.add('program', prog, context, where)
            continue
        else:
            continue
        for name in names:
            top = name.split('.')[0]
            if top not in local_modules:
                reqs.add('python-module', top, 'host', where)
