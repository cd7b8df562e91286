#!/usr/bin/env python3
"""Fails on import circles between the modules of each Rust crate and of the Python package.

Modules that import each other, directly or through others, are one module split across files:
none can be read, tested or moved alone. This finds every such circle (a strongly connected
component of the import graph), prints the import behind each of its edges (file, line, text) and
exits 1 if there is any. Sources only, stdlib only, no build, well under a second; `make lint` runs
it. Usage: tools/check_layers.py [--root DIR] [--list (every edge too)].

Rust, per crate (crates/*/src; crates/incast-wire/fuzz is a crate of its own). Modules are the files
reached from lib.rs by `mod x;`; an inline `mod x { }` is part of its file. Comments, strings and all
under `#[cfg(test)]` (test modules, test-only files such as harness.rs, test-only functions) are
left out: tests may import anything. A module depends on what its code names: `use crate::..`,
`use super::..` (from the module), `use self::x..` or `use x::..` for a child x, grouped or renamed
(`use crate::{a::X, b::{Y, Z}}`), and the same paths in code (`crate::results::ExtraKind::U64`). A
path goes to the deepest module it names (`crate::transport::d3::router::D3Port` is
transport/d3/router.rs), through the imports and re-exports of the modules on its way
(`crate::ScenarioError`, which lib.rs re-exports from error.rs, is error.rs; globs and exported
macros alike): an edge is where the code really depends. `pub use x::..` is an edge to x; `mod x;`
is none. Not understood: `#[path]`, nested block comments, paths that macros assemble.

The rule for parent and child modules. A module with children (lib.rs, foo.rs or foo/mod.rs with
foo/) is a level, checked apart: its nodes are the parent and its children, each child standing for
its subtree (foo/mod.rs and all of foo/ are one node), so an edge counts at one level only, that of
the lowest module holding both ends. At a level:
  * child -> sibling edges all count, so two siblings importing each other are a circle (siblings),
    also through their children or the parent's re-exports (followed to the sibling, above);
  * child -> parent edges count (children take the parent's shared types: `use super::Plugin`);
  * parent -> child edges count if the parent's own code uses the child. A re-export its own code
    does not use (a facade: `pub(crate) use registry::{Header, ..}`) does not count: whoever takes
    the name through the parent is already counted as depending on the child.
So children may import a parent that only declares and re-exports them (printed as allowed: a module
and the submodules behind its API are one unit), but a parent whose own code calls a child that uses
the parent's items is a circle (parent/child), and fails like one between siblings: exempting it
would let siblings close a circle through the parent unseen (c1 uses the parent's type, the parent
calls c2, c2 uses c1), and the fix is the same: move the shared items into a module below both.

Python (python/<package>). Each .py file is a module (__init__.py its package). Edges come from
`import incast.x`, `from incast.x import y` and relative imports, deferred into functions or not
(marked `deferred`: they still tie the two together), but not under `if TYPE_CHECKING:` nor from .pyi
stubs, which never run. `from p import y` goes to p.y if that is a module, else to p; importing p.y
does not count as importing p/__init__.py. Circles are reported among modules, then, in each
package, among its children with each subpackage whole (in incast, all of incast/x/ is the node
incast.x; in incast.x, all of incast/x/y/ is incast.x.y), unless the same as a circle among modules:
two subpackages importing each other are a circle even when no two modules are.
"""
from __future__ import annotations

import argparse
import ast
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence, Set, Tuple


class Ref(NamedTuple):
    """One import behind an edge: where it is, its text, and whether it only re-exports."""

    file: str
    line: int
    text: str
    reexport: bool


Edges = Dict[Tuple[str, str], List[Ref]]
ModPath = Tuple[str, ...]  # a Rust module's path from the crate root: () is lib.rs
# Comments, raw and plain strings and char literals (not lifetimes: `'a` has no closing quote).
LEX = re.compile(
    r"//[^\n]*|/\*.*?\*/|(?<![\w$])b?r(#*)\".*?\"\1|b?\"(?:\\.|[^\"\\])*\"|b?'(?:\\(?:u\{\w+\}|x..|.)|[^'\\\n])'", re.S
)
CFG_TEST = re.compile(r"#\s*\[\s*cfg\s*\(\s*(?:all\s*\(\s*)?test\b")
MOD, USE = re.compile(r"mod\s+(\w+)\s*([;{])"), re.compile(r"use\s+([^;]*);")  # preceding char checked apart
PUB = re.compile(r"\bpub\s*(?:\([^)]*\))?\s*\Z")
DEFINED = re.compile(r"\b(?:fn|struct|enum|trait|type|const|static|union|macro_rules!)\s*(\w+)")
EXPORTED = re.compile(r"#\s*\[\s*macro_export\s*\][^!]*?macro_rules!\s*(\w+)")
PUNCT, BRACE = re.compile(r"[()\[\]{};,]|\buse\b"), re.compile(r"[{}]")
PATH = re.compile(r"(crate|super|self)((?:\s*::\s*\w+)+)")
# A name used in code, unless qualified (`Self::Header`), a field or method (`.x`), declared (`type
# Header`), an associated-type binding or a parameter (`Header = ..`, `x: ..`).
NAME = r"(?<![\w:.$])(?<!type\s){}\b(?!\s*(?:=[^=>]|:[^:]))"


def blank(s: str) -> str:
    """`s` with everything but newlines turned into spaces (so offsets and lines hold)."""
    return "\n".join(" " * len(part) for part in s.split("\n"))


def item_end(s: str, i: int) -> int:
    """The end of the item starting at `i`, its attributes aside: a `;` or `,`, or its block."""
    depth, in_use = 0, False
    for m in PUNCT.finditer(s, i):
        c = m.group()
        if c in "([" or (c == "{" and (depth or in_use)):
            depth += 1
        elif c in ")]}" and depth:
            depth -= 1
        elif c == "use":
            in_use = in_use or depth == 0
        elif c == "{":
            level = 0
            for b in BRACE.finditer(s, m.start()):
                level += 1 if b.group() == "{" else -1
                if level == 0:
                    return b.end()
        elif depth == 0:  # `;`, `,`, or the bracket closing what holds the item
            return m.end() if c in ";," else m.start()
    return len(s)


def use_tree(toks: List[str], prefix: List[str], i: int = 0) -> Tuple[List[Tuple[List[str], Optional[str]]], int]:
    """Flattens a use tree into (path, alias) leaves; a `self` leaf names its prefix."""
    path: List[str] = list(prefix)
    out: List[Tuple[List[str], Optional[str]]] = []
    while i < len(toks) and toks[i] not in (",", "}"):
        t, i = toks[i], i + 1
        if t == "{":
            while i < len(toks) and toks[i] != "}":
                leaves, i = use_tree(toks, path, i)
                out, i = out + leaves, i + (toks[i : i + 1] == [","])
            return out, i + 1
        path += [t] if t != "::" or not path else []
        if t == "*" or i >= len(toks) or toks[i] in (",", "}", "as"):
            alias = toks[i + 1] if toks[i : i + 1] == ["as"] else None
            return [(path[:-1] if path[-1] == "self" else path, alias)], i + (2 if alias else 0)
    return out, i


class Module:
    """One module file: its code (comments, strings, tests and imports blanked) and its imports."""

    def __init__(self, name: ModPath, file: Path, root: Path) -> None:
        self.name, self.rel, text = name, str(file.relative_to(root)), file.read_text(encoding="utf-8")
        self.raw, code = text.splitlines(), LEX.sub(lambda m: blank(m.group()), text)
        for m in reversed(list(CFG_TEST.finditer(code))):
            end = item_end(code, code.index("]", m.end()) + 1)
            code = code[: m.start()] + blank(code[m.start() : end]) + code[end:]
        self.decls = [m for m in MOD.finditer(code) if not code[m.start() - 1 : m.start()].isidentifier()]
        self.inline = [(m.end(), item_end(code, m.end() - 1)) for m in self.decls if m.group(2) == "{"]
        self.children: Dict[str, ModPath] = {}
        self._defined: Optional[Set[str]] = None
        self.uses: List[Tuple[List[str], Optional[str], int, bool]] = []  # path, alias, offset, pub
        found = [m for m in USE.finditer(code) if not code[m.start() - 1 : m.start()].isidentifier()]
        for m in found:
            pub = PUB.search(code, max(0, m.start() - 40), m.start()) is not None
            leaves = use_tree(re.findall(r"::|[{},*]|\$?\w+", m.group(1)), [])[0]
            self.uses += [(path, alias, m.start(), pub) for path, alias in leaves if path]
        for m in found:
            code = code[: m.start()] + blank(m.group()) + code[m.end() :]
        self.code = code
        top = [(p, a) for p, a, at, _ in self.uses if not self.depth(at)]
        self.binds = {a or p[-1]: p for p, a in top if p[-1] != "*" and a != "_"}
        self.globs = [p[:-1] for p, _ in top if p[-1] == "*"]

    def defines(self, name: str) -> bool:
        """Whether the module defines an item `name` (a function, type, constant, macro...)."""
        if self._defined is None:
            self._defined = set(DEFINED.findall(self.code))
        return name in self._defined

    def names(self, name: str) -> bool:
        """Whether the module's own code, its imports aside, uses `name` (see NAME)."""
        return name in self.code and re.search(NAME.format(re.escape(name)), self.code) is not None

    def depth(self, at: int) -> int:
        """How many inline `mod x { }` blocks enclose offset `at`."""
        return sum(a <= at < b for a, b in self.inline)


class Crate:
    """A crate's module tree and the edges between its modules."""

    def __init__(self, name: str, lib: Path, root: Path) -> None:
        self.name, self.mods = name, {}
        todo: List[Tuple[ModPath, Path]] = [((), lib)]
        while todo:
            path, file = todo.pop()
            mod = self.mods[path] = Module(path, file, root)
            base = file.parent if file.name in ("lib.rs", "main.rs", "mod.rs") else file.with_suffix("")
            for m in (m for m in mod.decls if m.group(2) == ";"):
                for f in (base / f"{m.group(1)}.rs", base / m.group(1) / "mod.rs"):
                    if f.is_file() and m.group(1) not in mod.children:
                        mod.children[m.group(1)] = path + (m.group(1),)
                        todo.append((path + (m.group(1),), f))
        for mod in list(self.mods.values()):  # an exported macro is named from the crate root
            for macro in EXPORTED.findall(mod.code):
                self.mods[()].binds.setdefault(macro, ["crate", *mod.name, macro])
        self.edges: Dict[Tuple[ModPath, ModPath], List[Ref]] = defaultdict(list)
        for mod in self.mods.values():
            for used, alias, at, pub in mod.uses:
                self.add(mod, used, at, pub and used[-1] != "*" and not mod.names(alias or used[-1]))
            for m in PATH.finditer(mod.code):
                if not re.match(r"[\w:.]", mod.code[m.start() - 1]):  # `$crate` is `crate`
                    self.add(mod, [m.group(1)] + re.findall(r"\w+", m.group(2)), m.start(), False)
            children = rf"(?<![\w:.$])({'|'.join(mod.children)})\s*::\s*\w+"
            for m in re.finditer(children, mod.code) if mod.children else ():
                self.add(mod, re.findall(r"\w+", m.group()), m.start(), False)

    def absolute(self, mod: Module, path: List[str], depth: int = 0, hops: int = 0) -> Optional[List[str]]:
        """`path` as written in `mod` (`depth` inline modules deep), from the crate root; None if
        it is another crate's (or an import loops)."""
        ups = next((i for i, s in enumerate(path) if s != "super"), len(path))
        if path[0] in ("crate", "$crate"):
            return path[1:]
        if ups or path[0] == "self":
            return list(mod.name[: len(mod.name) - max(0, ups - depth)]) + path[max(ups, 1) :]
        if path[0] in mod.children:
            return list(mod.name) + path
        if mod.binds.get(path[0], path) == path or hops > 16:
            return None
        bound = self.absolute(mod, mod.binds[path[0]], 0, hops + 1)
        return None if bound is None else bound + path[1:]

    def walk(self, path: List[str], hops: int = 0) -> ModPath:
        """The deepest module `path` names, following imports and re-exports (globs too)."""
        mod = self.mods[()]
        for i, seg in enumerate(path):
            if seg in mod.children:
                mod = self.mods[mod.children[seg]]
                continue
            if hops < 16 and seg in mod.binds:
                target = self.absolute(mod, mod.binds[seg])
                if target is not None:  # else another crate's: the path ends here
                    return self.walk(target + path[i + 1 :], hops + 1)
            elif hops < 16 and not mod.defines(seg):
                for target in filter(None, (self.absolute(mod, g) for g in mod.globs)):
                    src = self.mods[self.walk(target, hops + 1)]
                    if src.defines(seg) or seg in src.children or seg in src.binds:
                        return self.walk(target + path[i:], hops + 1)
            break
        return mod.name

    def add(self, mod: Module, path: List[str], at: int, reexport: bool) -> None:
        """Records the edge from `mod` to the module that `path`, written at offset `at`, names."""
        target = self.absolute(mod, path, mod.depth(at))
        dest = self.walk(target) if target is not None else mod.name
        if dest != mod.name:
            line = mod.code.count("\n", 0, at) + 1
            self.edges[mod.name, dest].append(Ref(mod.rel, line, mod.raw[line - 1].strip()[:90], reexport))


def python_edges(pkg: Path, root: Path) -> Edges:
    """The edges between the modules of the package in directory `pkg`."""
    files = {}
    for f in sorted(pkg.rglob("*.py*")):
        if f.suffix in (".py", ".pyi") and "__pycache__" not in f.parts:
            parts = f.relative_to(pkg.parent).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f

    def deepest(name: str) -> Optional[str]:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    edges: Edges = defaultdict(list)
    for mod, file in files.items():
        text = file.read_text(encoding="utf-8")
        here, lines = mod if file.stem == "__init__" else mod.rpartition(".")[0], text.splitlines()
        todo = [(n, False) for n in ast.parse(text).body] if file.suffix == ".py" else []
        while todo:  # statements only: an import is one, and is never inside an expression
            node, deferred = todo.pop()
            targets: List[Optional[str]] = []
            if isinstance(node, ast.Import):
                targets = [deepest(a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(here.split(".")[: len(here.split(".")) + 1 - node.level]) if node.level else ""
                base = ".".join(p for p in (base, node.module or "") if p)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else deepest(base) for a in node.names]
            for target in (t for t in targets if t and t != mod):
                shown = lines[node.lineno - 1].strip()[:90] + ("  (deferred)" if deferred else "")
                edges[mod, target].append(Ref(str(file.relative_to(root)), node.lineno, shown, False))
            inner = deferred or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            test = node.test if isinstance(node, ast.If) else None
            typing_only = getattr(test, "id", getattr(test, "attr", "")) == "TYPE_CHECKING"
            for field in ("orelse",) if typing_only else ("body", "orelse", "finalbody", "handlers", "cases"):
                for sub in getattr(node, field, ()):
                    todo += [(sub, inner)] if isinstance(sub, ast.stmt) else [(n, inner) for n in sub.body]
    return edges


def circles(edges: Sequence[Tuple[str, str]]) -> List[List[str]]:
    """The strongly connected components of more than one node (graphs here are small: a
    component is what a node reaches and is reached from)."""
    succ: Dict[str, Set[str]] = defaultdict(set)
    for a, b in edges:
        succ[a].add(b)
    reach: Dict[str, Set[str]] = {}
    for v in list(succ):
        seen: Set[str] = set()
        todo = [v]
        while todo:
            for w in succ[todo.pop()] - seen:
                seen.add(w)
                todo.append(w)
        reach[v] = seen
    comps = {tuple(sorted(w for w in reach[v] if v in reach.get(w, ()))) for v in reach if v in reach[v]}
    return sorted(list(c) for c in comps if len(c) > 1)


def cycle(start: str, comp: List[str], edges: Sequence[Tuple[str, str]]) -> List[str]:
    """A shortest cycle from `start` within a circle (breadth first)."""
    paths, queue = {start: [start]}, [start]
    for a in queue:
        for b in comp:
            if (a, b) in edges and b == start:
                return paths[a] + [start]
            if (a, b) in edges and b not in paths:
                paths[b] = paths[a] + [b]
                queue.append(b)
    return comp


def report(title: str, edges: Edges, parent: str = "", skip: Sequence[List[str]] = ()) -> List[List[str]]:
    """Prints the circles among `edges` (a level's, if `parent` is given) but those in `skip`, with
    one import per edge; returns them."""
    keys = set(edges)
    found = [c for c in circles([e for e in keys if parent not in e]) if c not in skip]
    found += [c for c in circles(list(keys)) if parent in c] if parent else []
    name = {parent: f"{parent} (parent)"}
    for comp in found:
        kind = "" if not parent else " (parent/child)" if parent in comp else " (siblings)"
        ring = cycle(parent if parent in comp else comp[0], comp, list(keys))
        print(f"{title}{kind}: " + " -> ".join(name.get(n, n) for n in ring))
        if len(comp) > len(ring) - 1:
            print(f"  all {len(comp)} modules of the circle: " + ", ".join(name.get(n, n) for n in comp))
        on_ring = set(zip(ring, ring[1:]))
        for a, b in sorted(e for e in keys if {*e} <= {*comp} and (parent not in comp or parent in e or e in on_ring)):
            refs = sorted({(r.reexport, r.file, r.line): r for r in edges[a, b]}.values())
            more = f" (+{len(refs) - 1} more)" if len(refs) > 1 else ""
            print(f"    {name.get(a, a)} -> {name.get(b, b)}: {refs[0].file}:{refs[0].line}  {refs[0].text}{more}")
    return found


def check_crate(crate: Crate, listing: bool) -> int:
    """Reports a crate's circles level by level (see the rule above); returns how many."""
    levels: Dict[ModPath, Edges] = defaultdict(lambda: defaultdict(list))
    facades: Set[Tuple[ModPath, ModPath]] = set()
    show = {n: "::".join(n) or "crate" for n in crate.mods}
    for (a, b), refs in sorted(crate.edges.items()):
        if listing:
            kind = "re-export" if all(r.reexport for r in refs) else "use"
            print(f"  {crate.name}: {show[a]} -> {show[b]} [{kind}] {refs[0].file}:{refs[0].line}")
        k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        if len(a) == k and all(r.reexport for r in refs):
            facades.add((a, b[: k + 1]))
        else:
            levels[a[:k]][show[a[: k + 1]], show[b[: k + 1]]] += refs
    total = 0
    for level, edges in sorted(levels.items()):
        where = f"in {show[level]}" if level else "at the crate root"
        total += len(report(f"{crate.name}, {where}", edges, show[level]))
    for parent, child in sorted(facades):
        if (show[child], show[parent]) in levels[parent]:
            print(f"{crate.name}: {show[parent]} re-exports {show[child]}, which imports it (parent/child, allowed)")
    return total


def main(argv: Optional[List[str]] = None) -> int:
    """Checks the crates and Python packages under --root; exit status 1 on any circle."""
    args = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    args.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent, help="the repository")
    args.add_argument("--list", action="store_true", help="print every edge too")
    opts = args.parse_args(argv)
    root, started, total = opts.root.resolve(), time.perf_counter(), 0
    if not any(root.glob("crates/*/src/*.rs")) and not any(root.glob("python/*/__init__.py")):
        sys.exit(f"check_layers: no crates/*/src nor python/*/__init__.py under {root}")
    for src in sorted(root.glob("crates/*/src")):
        lib = src / "lib.rs" if (src / "lib.rs").is_file() else src / "main.rs"
        total += check_crate(Crate(src.parent.name, lib, root), opts.list) if lib.is_file() else 0
    for init in sorted(root.glob("python/*/__init__.py")):
        pkg, edges = init.parent.name, python_edges(init.parent, root)
        inits = init.parent.rglob("__init__.py")
        packages = sorted({".".join(p.relative_to(root / "python").parts[:-1]) for p in inits})
        grouped: Dict[str, Edges] = {p: defaultdict(list) for p in packages}
        for (a, b), refs in sorted(edges.items()):
            if opts.list:
                print(f"  {pkg}: {a} -> {b} {refs[0].file}:{refs[0].line}")
            for p in packages:  # each package's children: its modules, and its subpackages whole
                depth = p.count(".") + 2
                child_a, child_b = (".".join(m.split(".")[:depth]) for m in (a, b))
                if a.startswith(p + ".") and b.startswith(p + ".") and child_a != child_b:
                    grouped[p][child_a, child_b] += refs
        found = report(f"python {pkg}, modules", edges)
        for p in packages:
            total += len(report(f"python {p}, subpackages", grouped[p], skip=found))
        total += len(found)
    took = time.perf_counter() - started
    print(f"check_layers: {total or 'no'} import circle{'s' * (total != 1)} ({took:.2f} s)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
