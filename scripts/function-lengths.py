#!/usr/bin/env python3
"""Lists Swift functions, initializers, computed bodies and closures longer than a limit (docs/architecture.md,
"Code layout"): a closure is a body as much as a function is (a command's `run: { invocation, context in`).
Also lists doc comments (`///`) that a blank line or a plain comment cuts off from the declaration they
describe: the compiler and DocC then attach them to nothing (put a `// Long:` reason above the doc comment). A body may be longer when the comment block just above its declaration, or its first line,
holds a comment starting `// Long:` that says why. Exit 1 when any other body is over the limit.

    scripts/function-lengths.py [--limit 60] [--all] [PATH ...]    (default PATH: Sources)
"""
import os
import re
import sys

DECLARATION = re.compile(
    r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|open|static|class|final|'
    r'override|mutating|nonmutating|convenience|required|nonisolated|@discardableResult|@inlinable)\s+)*'
    r'(func\s+[^\s(<]+|init[?!]?\s*[(<]|deinit\b|(?:var|subscript)\b[^{=]*\{\s*$)')

# A closure opening at the end of a line: after a label, `=`, `(` or `,`, a member call or a call's `)`,
# with its capture list and parameters, if any. Control flow and type bodies are not closures.
CLOSURE = re.compile(r'(?:[:=(,]\s*|\.\w+\s*|\)\s*)\{\s*(?:\[[^\]]*\]\s*)?(?:(?:\([^)]*\)|[\w\s,]+?)\s+in)?\s*$')
NOT_CLOSURE = re.compile(
    r'^\s*(?:\}|if\b|guard\b|for\b|while\b|switch\b|else\b|catch\b|do\b|repeat\b|defer\b|case\b|default\b|'
    r'(?:(?:public|package|private|fileprivate|internal|open|final|indirect)\s+)*'
    r'(?:struct|class|enum|extension|protocol|actor)\b)')


def code_only(line, state):
    """The line without string contents and comments; `state` carries multi-line strings and comments."""
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
        c = line[i]
        if c == '"':
            i += 1
            depth = 0
            while i < len(line):
                if line[i] == '\\' and i + 1 < len(line) and line[i + 1] == '(':
                    depth += 1
                    i += 2
                    continue
                if depth and line[i] == ')':
                    depth -= 1
                elif depth and line[i] == '(':
                    depth += 1
                elif line[i] == '\\':
                    i += 1
                elif line[i] == '"' and not depth:
                    break
                i += 1
            i += 1
            out.append('""')
            continue
        out.append(c)
        i += 1
    return ''.join(out)


def bodies(path):
    with open(path, encoding='utf-8') as handle:
        lines = handle.read().split('\n')
    state = {'block': False, 'multiline': False}
    code = [code_only(line, state) for line in lines]
    found = []
    # Lines where a declaration's body opens (`) -> T {` after a long signature): not closures.
    openers = set()
    for index, line in enumerate(code):
        match = DECLARATION.match(line)
        closure = not match and index not in openers and CLOSURE.search(line) and not NOT_CLOSURE.match(line)
        if not match and not closure:
            continue
        depth, opened, end = 0, False, None
        for j in range(index, len(code)):
            for c in code[j]:
                if c == '{':
                    if not opened and match:
                        openers.add(j)
                    depth += 1
                    opened = True
                elif c == '}':
                    depth -= 1
            if opened and depth <= 0:
                end = j
                break
            if not opened and j > index + 15:
                break
        if end is None:
            continue
        name = match.group(1).strip().rstrip('({<').strip() if match else 'closure'

        # The comment block just above the declaration (and its first lines) may give the reason.
        above = index - 1
        while above >= 0 and lines[above].strip().startswith(('//', '@')):
            above -= 1
        reason = any('// Long:' in lines[k] for k in range(above + 1, min(index + 2, len(lines))))
        found.append((end - index + 1, path, index + 1, name, reason))
    return found


def detached_doc_comments(path):
    """`///` lines followed by a blank line or a `//` comment: documentation attached to nothing."""
    with open(path, encoding='utf-8') as handle:
        lines = handle.read().split('\n')
    found = []
    for index, line in enumerate(lines[:-1]):
        following = lines[index + 1].strip()
        if line.strip().startswith('///') and (not following or (following.startswith('//') and not following.startswith('///'))):
            found.append((path, index + 1))
    return found


def main(argv):
    limit, show_all, paths = 60, False, []
    args = iter(argv)
    for arg in args:
        if arg == '--limit':
            limit = int(next(args))
        elif arg == '--all':
            show_all = True
        else:
            paths.append(arg)
    found, detached = [], []
    for root in paths or ['Sources']:
        for directory, _, files in os.walk(root):
            for name in sorted(files):
                if name.endswith('.swift'):
                    found.extend(bodies(os.path.join(directory, name)))
                    detached.extend(detached_doc_comments(os.path.join(directory, name)))
    found.sort(key=lambda item: (-item[0], item[1], item[2]))
    failing = [item for item in found if item[0] > limit and not item[4]]
    for length, path, line, name, reason in found if show_all else [item for item in found if item[0] > limit]:
        print(f'{length:5} {path}:{line} {name}{"  (Long: reason given)" if reason else ""}')
    for path, line in detached:
        print(f'{path}:{line}: a doc comment that describes nothing (a blank line or a // comment follows it)')
    if failing:
        print(f'{len(failing)} bodies over {limit} lines without a "// Long:" reason', file=sys.stderr)
    return 1 if failing or detached else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
