#!/usr/bin/env python3
"""The layering check (docs/rooms.md): every #include under sim/ and every import under
calibrate/ runs down the floors that docs/rooms.md declares, once, in its `rooms` and
`python-rooms` blocks.

Fails, naming each file, on
- an arrow up or sideways: a file of one room including a room on its own floor or above it
  (or a room the order does not list), unless docs/rooms.md's `known-arrows` block names that
  very file and room as a debt still to pay; a debt that no longer exists fails too, so the
  list only shrinks;
- a cycle: of #includes among sim/'s files, or of imports (at any depth of a module, a function's
  import included) among calibrate/'s Python modules;
- a core room (marked `core`) including SimGrid: the core library is built without it.

Run: tests/layering.py [--root SOURCE_DIR]   (ctest: Layering.RoomsRunDownTheFloors)
"""

import argparse
import ast
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')


def block(text, name):
    """Lines of the fenced block opened with ```name, comments and blank lines left out."""
    m = re.search(r"^```" + re.escape(name) + r"\n(.*?)^```", text, re.M | re.S)
    if not m:
        sys.exit("docs/rooms.md has no ```%s block" % name)
    lines = []
    for line in m.group(1).splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            lines.append(line)
    return lines


def floors(lines):
    """`N: room room ... [core]` -> ({room: floor}, {core rooms})."""
    floor_of, core = {}, set()
    for line in lines:
        number, _, rest = line.partition(":")
        words = rest.split()
        is_core = "[core]" in words
        for room in words:
            if room == "[core]":
                continue
            if room in floor_of:
                sys.exit("docs/rooms.md lists room %s twice" % room)
            floor_of[room] = int(number)
            if is_core:
                core.add(room)
    return floor_of, core


def find_cycle(graph):
    """One cycle of `graph` ({node: set of nodes}) as a list of nodes, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def check_sim(root, doc, problems):
    floor_of, core = floors(block(doc, "rooms"))
    debts = set()
    for line in block(doc, "known-arrows"):
        path, arrow, room = line.partition("->")
        if not arrow:
            sys.exit("docs/rooms.md known-arrows: expected `sim/room/file -> room`: " + line)
        debts.add((path.strip(), room.strip()))
    used_debts = set()
    graph = {}
    sim = os.path.join(root, "sim")
    for folder, _, files in sorted(os.walk(sim)):
        for name in sorted(files):
            if not name.endswith((".cpp", ".h", ".cpp.in")):
                continue
            path = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            room = path.split("/")[1]
            if room not in floor_of:
                problems.append("%s: room sim/%s/ is not in docs/rooms.md's order" % (path, room))
                continue
            graph.setdefault(path, set())
            with open(os.path.join(root, path), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    where = "%s:%d" % (path, number)
                    if target.startswith("simgrid/") and room in core:
                        problems.append("%s: core room %s includes SimGrid (<%s>)" %
                                        (where, room, target))
                    if not target.startswith("sim/"):
                        continue
                    graph[path].add(target)
                    to = target.split("/")[1]
                    if to == room:
                        continue
                    if to in floor_of and floor_of[to] < floor_of[room]:
                        continue
                    if (path, to) in debts:
                        used_debts.add((path, to))
                        continue
                    problems.append(
                        "%s: %s (floor %s) includes %s (floor %s): an arrow %s; move the code "
                        "or the include down (docs/rooms.md)" %
                        (where, room, floor_of[room], target, floor_of.get(to, "unlisted"),
                         "sideways" if floor_of.get(to) == floor_of[room] else "back up"))
    for path, room in sorted(debts - used_debts):
        problems.append("docs/rooms.md known-arrows: %s -> %s no longer exists: strike it" %
                        (path, room))
    cycle = find_cycle(graph)
    if cycle:
        problems.append("#include cycle: " + " -> ".join(cycle))
    return len(graph)


def python_imports(path, modules):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    found = {}
    for node in ast.walk(tree):  # every depth: an import inside a function is an import too
        names = []
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module.split(".")[0]]
        for name in names:
            if name in modules:
                found.setdefault(name, node.lineno)
    return found


def check_python(root, doc, problems):
    floor_of, _ = floors(block(doc, "python-rooms"))
    folder = os.path.join(root, "calibrate", "pytorch")
    modules = {n[:-3] for n in os.listdir(folder) if n.endswith(".py")}
    graph = {}
    for module in sorted(modules):
        path = "calibrate/pytorch/%s.py" % module
        if module not in floor_of:
            problems.append("%s: module %s is not in docs/rooms.md's python-rooms" %
                            (path, module))
            continue
        imports = python_imports(os.path.join(root, path), modules)
        graph[module] = set(imports) - {module}
        for name, line in sorted(imports.items()):
            if name == module or floor_of.get(name, 10**9) < floor_of[module]:
                continue
            problems.append("%s:%d: %s (floor %d) imports %s (floor %s): an arrow back up" %
                            (path, line, module, floor_of[module], name,
                             floor_of.get(name, "unlisted")))
    for module in sorted(set(floor_of) - modules):
        problems.append("docs/rooms.md python-rooms lists %s, which calibrate/pytorch lacks" %
                        module)
    cycle = find_cycle(graph)
    if cycle:
        problems.append("import cycle: " + " -> ".join(cycle))
    return len(graph)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), help="the source tree (default: this file's)")
    args = parser.parse_args()
    with open(os.path.join(args.root, "docs", "rooms.md"), encoding="utf-8") as f:
        doc = f.read()
    problems = []
    files = check_sim(args.root, doc, problems)
    modules = check_python(args.root, doc, problems)
    for p in problems:
        print(p)
    if problems:
        print("%d problem(s)" % len(problems))
        return 1
    print("layering: %d files under sim/ and %d modules under calibrate/pytorch run down the "
          "floors, no cycle, no SimGrid in the core" % (files, modules))
    return 0


if __name__ == "__main__":
    sys.exit(main())
