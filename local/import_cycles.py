"""`python -m local.import_cycles`: the import circles in the shared package, the local runtime
and the benches (`PACKAGES`), counting imports placed inside functions (grimp reads every import
statement of a module). Exits 1 if there are any, or if the local runtime imports the benches
(they are built on it, never the other way); `make lint` runs it. import-linter's contracts
check direction between the shared package's layers; a circle inside one package (two use cases
importing each other, the emulator and its capacity accounting) is this check's."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("stratus", "local", "bench")


def _graph():
    for path in (ROOT, ROOT / "layers/shared"):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
    import grimp

    return grimp.build_graph(*PACKAGES, cache_dir=None)


def edges_of(graph) -> dict[str, list[str]]:
    return {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def upward(edges: dict[str, list[str]]) -> list[str]:
    """Imports of a bench by the local runtime or the shared package ("importer -> imported")."""
    return sorted(f"{m} -> {n}" for m, imported in edges.items() if not m.startswith("bench")
                  for n in imported if n == "bench" or n.startswith("bench."))


def cycles(edges: dict[str, list[str]] | None = None) -> list[list[str]]:
    """Each set of modules that import each other, directly or through others (largest first)."""
    edges = edges_of(_graph()) if edges is None else edges
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):  # Tarjan's strongly connected components, iteratively
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            successors = edges.get(node, [])
            if i < len(successors):
                work.append((node, i + 1))
                nxt = successors[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return sorted(found, key=len, reverse=True)


def main() -> int:
    edges = edges_of(_graph())
    found = cycles(edges)
    for component in found:
        print(f"{len(component)} modules import each other: {', '.join(component)}")
    print(f"{len(found)} import circle(s) in {', '.join(PACKAGES)}")
    wrong = upward(edges)
    for line in wrong:
        print(f"the runtime imports a bench: {line}")
    return 1 if found or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
