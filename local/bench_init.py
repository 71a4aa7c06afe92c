"""INIT per function, one tree against another in the same run: `python -m local.bench_init
--base REV [--after REV] [--runs N] [--only Fn1,Fn2]`.

Both trees are exported from git (`git archive`) into temporary folders and compiled to
bytecode as `make build` ships them (`compileall`, unchecked hashes), so neither side pays for
compiling — or one side only, as happens when one tree holds `__pycache__` from an earlier run
and the other does not. For each function the two trees alternate, `--runs` fresh processes
each (default 5); the median INIT (imports + app build) is printed per function with the ratio
after/before, then the totals. Tracing and metrics are off on both sides, as in `make bench`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from . import cfn

CHILD = r"""
import importlib.util, json, os, sys, time
sys.path.insert(0, os.path.dirname(sys.argv[1]))  # Lambda's code directory: sibling modules
t0 = time.perf_counter()
spec = importlib.util.spec_from_file_location("fn", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
getattr(module, sys.argv[2])
print(json.dumps({"init_ms": (time.perf_counter() - t0) * 1000}))
"""
QUIET = {"POWERTOOLS_SERVICE_NAME": "bench", "POWERTOOLS_METRICS_DISABLED": "true",
         "POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_LOG_LEVEL": "WARNING",
         "AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "bench",
         "AWS_SECRET_ACCESS_KEY": "bench", "PYTHONDONTWRITEBYTECODE": "1"}


def export(rev: str, into: Path) -> Path:
    """The tree of `rev`, as committed, in `into`."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(cfn.ROOT), "archive", rev], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode",
                    "unchecked-hash", str(into / "layers"), str(into / "functions")], check=True)
    return into


def init_ms(root: Path, fn: cfn.Function) -> float:
    module, attribute = fn.handler.rsplit(".", 1)
    path = root / fn.code_dir.relative_to(cfn.ROOT) / f"{module}.py"
    env = {**os.environ, **QUIET, "PYTHONPATH": f"{root / 'layers/shared'}:{root}"}
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), attribute], env=env,
                         cwd=root, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["init_ms"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the tree before (a git revision)")
    parser.add_argument("--after", default="HEAD", help="the tree after (default HEAD)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="", help="function logical ids, comma-separated")
    args = parser.parse_args(argv)
    only = set(filter(None, args.only.split(",")))
    functions = [f for f in cfn.functions(cfn.load_template())
                 if f.handler != "run.sh" and (not only or f.logical_id in only)]
    with tempfile.TemporaryDirectory() as folder:
        trees = {"before": export(args.base, Path(folder) / "before"),
                 "after": export(args.after, Path(folder) / "after")}
        print(f"INIT ms, median of {args.runs} alternating fresh processes per tree: "
              f"{args.base} → {args.after}")
        totals = {"before": 0.0, "after": 0.0}
        for fn in functions:
            samples: dict[str, list[float]] = {"before": [], "after": []}
            for _ in range(args.runs):
                for label, root in trees.items():
                    samples[label].append(init_ms(root, fn))
            before, after = (statistics.median(samples[k]) for k in ("before", "after"))
            totals["before"] += before
            totals["after"] += after
            print(f"{fn.logical_id:30} {before:8.0f} {after:8.0f} {after / before:6.2f}",
                  flush=True)
        print(f"{'total':30} {totals['before']:8.0f} {totals['after']:8.0f} "
              f"{totals['after'] / totals['before']:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
