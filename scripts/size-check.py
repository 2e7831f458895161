#!/usr/bin/env python3
"""House rule of docs/architecture.md: no Swift file over 400 lines and no function over 80.

usage: scripts/size-check.py [folder …]   (default: Sources)
Prints each offender as `path:line: …` and exits 1 when there is one. Functions are found by
their `func`/`init`/`deinit`/accessor keyword and measured from that line to the brace that
closes their body, skipping braces inside string literals and comments."""
import os
import re
import sys

FILE_LIMIT = 400
FUNCTION_LIMIT = 80
DECLARATION = re.compile(r'^\s*(?:@[\w()".:, ]+\s+)*(?:(?:public|private|fileprivate|internal|package|open|static|class|final|override|mutating|nonisolated|convenience|required|@\w+)\s+)*(?:func\s+[^\s(<]+|init[?!]?|deinit)\s*[(<{]?')

BODYLESS = re.compile(r'^\s*(?:(?:public|private|internal|package|static)\s+)*(?:var|let|case|typealias|associatedtype|subscript)\b')


def code_only(line, state):
    """The line with string literals and comments blanked; `state` carries a block comment or a
    multi-line string across lines."""
    out = []
    i = 0
    while i < len(line):
        if state['block']:
            end = line.find('*/', i)
            if end < 0:
                return ''.join(out)
            state['block'] = False
            i = end + 2
            continue
        if state['multiline']:
            end = line.find('"""', i)
            if end < 0:
                return ''.join(out)
            state['multiline'] = False
            i = end + 3
            continue
        if line.startswith('//', i):
            break
        if line.startswith('/*', i):
            state['block'] = True
            i += 2
            continue
        if line.startswith('"""', i):
            state['multiline'] = True
            i += 3
            continue
        if line[i] == '"':
            i += 1
            while i < len(line) and line[i] != '"':
                i += 2 if line[i] == '\\' else 1
            i += 1
            continue
        out.append(line[i])
        i += 1
    return ''.join(out)


def check(path):
    problems = []
    with open(path, encoding='utf-8') as handle:
        lines = handle.read().split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if len(lines) > FILE_LIMIT:
        problems.append(f'{path}:1: file has {len(lines)} lines (limit {FILE_LIMIT})')
    state = {'block': False, 'multiline': False}
    depth = 0
    open_functions = []  # (name, start line, depth outside its body)
    pending = None
    for number, raw in enumerate(lines, 1):
        code = code_only(raw, state)
        if DECLARATION.match(code):
            pending = (code.strip().split('(')[0].split('{')[0][:60], number, depth)
        elif pending is not None and '{' not in code and (not code.strip() or BODYLESS.match(code)):
            pending = None  # the declaration had no body: a protocol requirement
        for character in code:
            if character == '{':
                if pending is not None:
                    open_functions.append(pending)
                    pending = None
                depth += 1
            elif character == '}':
                depth -= 1
                if open_functions and open_functions[-1][2] == depth:
                    name, start, _ = open_functions.pop()
                    length = number - start + 1
                    if length > FUNCTION_LIMIT:
                        problems.append(f'{path}:{start}: {name} has {length} lines (limit {FUNCTION_LIMIT})')
    return problems


def main(folders):
    problems = []
    for folder in folders:
        for root, _, files in sorted(os.walk(folder)):
            for name in sorted(files):
                if name.endswith('.swift'):
                    problems += check(os.path.join(root, name))
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:] or ['Sources']))
