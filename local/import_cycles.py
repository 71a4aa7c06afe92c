"""`python -m local.import_cycles`: the import circles in the shared package, counting imports
placed inside functions (grimp reads every import statement of a module). Exits 1 if there are
any; `make lint` runs it. import-linter's contracts check direction between packages; a circle
inside one package (two use cases importing each other) is this check's."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cycles() -> list[list[str]]:
    """Each set of modules that import each other, directly or through others (largest first)."""
    sys.path.insert(0, str(ROOT / "layers/shared"))
    import grimp

    graph = grimp.build_graph("stratus", cache_dir=None)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
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
    found = cycles()
    for component in found:
        print(f"{len(component)} modules import each other: {', '.join(component)}")
    print(f"{len(found)} import circle(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
