#!/usr/bin/env python3
"""Runs StableHLO's own interpreter tests through `hhlo run` and counts what passes.

Usage: scripts/interpret_suite.py STABLEHLO_CHECKOUT [--hhlo HHLO] [--json OUT]
       [--only NAME_SUBSTRING] [--show fail|refused|all]

Each `// -----` case of stablehlo/tests/interpret/**/*.mlir whose checks are
`check.expect_eq_const` / `check.expect_almost_eq_const` / `check.expect_eq` /
`check.expect_almost_eq` becomes a program: the checks are removed, the checked values and their
expected values (the literal as a `stablehlo.constant`, or the other operand) are returned, and
`hhlo run --entry` writes both; they are compared with NumPy (exact, NaN equal to NaN, for the
`eq` checks; the checks' tolerance, 1e-4 by default, for the `almost_eq` ones). Cases that
use other checks, arguments, or files run through another tool first (`RUN: stablehlo-opt`) are
counted as not convertible. The StableHLO sources are not part of this project: give a checkout
(e.g. the one `fetch github:openxla/stablehlo` brings, read with `git archive`).

The result: passed, wrong (values differ), refused (hhlo ran no program: an error naming the
cause), per file; exit status 0 whatever the counts (it measures, it does not gate), 2 when
there is no hhlo executable or no test under the checkout.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

try:
    import ml_dtypes
except ImportError:  # outputs of those types are then compared as bytes
    ml_dtypes = None

# MLIR element type -> the ml_dtypes name of the NumPy type that holds it (hhlo writes these
# types' .npy files as raw bytes, descr '<V1' / '<V2', as np.save does for ml_dtypes arrays).
ML_DTYPES = {
    "bf16": "bfloat16", "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
    "f8E4M3FNUZ": "float8_e4m3fnuz", "f8E5M2FNUZ": "float8_e5m2fnuz",
    "f8E4M3B11FNUZ": "float8_e4m3b11fnuz", "f8E4M3": "float8_e4m3", "f8E3M4": "float8_e3m4",
    "f8E8M0FNU": "float8_e8m0fnu", "f4E2M1FN": "float4_e2m1fn", "i4": "int4", "ui4": "uint4",
    "i2": "int2", "ui2": "uint2",
}


def element_type(tensor_type):
    m = re.match(r"tensor<(?:[\d?]+x)*(.*)>$", tensor_type.strip())
    return m.group(1) if m else ""


def as_numbers(a, tensor_type):
    """`a` with raw-byte elements viewed as the ml_dtypes type of `tensor_type`, when there is one."""
    name = ML_DTYPES.get(element_type(tensor_type))
    if a.dtype.kind != "V" or ml_dtypes is None or name is None or not hasattr(ml_dtypes, name):
        return a
    return a.view(getattr(ml_dtypes, name))

CONST = re.compile(r"^(\s*)check\.(expect_eq_const|expect_almost_eq_const)\s+(%[\w#.$-]+)\s*,\s*(.*)$")
PAIR = re.compile(r"^(\s*)check\.(expect_eq|expect_almost_eq)\s+(%[\w#.$-]+)\s*,\s*(%[\w#.$-]+)(.*)$")
FUNC = re.compile(r"^func\.func\s+(?:public\s+|private\s+)?@([\w.$-]+)\((.*?)\)\s*(->\s*\(\s*\))?\s*\{\s*$")
TOL = re.compile(r",\s*tolerance\s*=\s*([0-9.eE+-]+)")
# A trailing attribute dictionary, `{tolerance = 0.1 : f64}`: its ' : ' is not the check's.
ATTRS = re.compile(r"\s*\{([^{}]*)\}\s*$")
ATTR_TOL = re.compile(r"\btolerance\s*=\s*([0-9.eE+-]+)")


def strip_attrs(rest):
    """(rest without its trailing attribute dictionary, the tolerance it gives or None)."""
    m = ATTRS.search(rest)
    if not m:
        return rest, None
    t = ATTR_TOL.search(m.group(1))
    return rest[: m.start()], float(t.group(1)) if t else None


def split_type(rest):
    """'LITERAL[, tolerance = X] : TYPE[ {tolerance = X : f64}]' -> (literal, tolerance or None, type)."""
    rest, tol = strip_attrs(rest)
    body, typ = rest.rsplit(" : ", 1)
    m = TOL.search(body)
    if m:
        tol = float(m.group(1))
        body = body[: m.start()]
    return body.strip(), tol, typ.strip()


def convert_case(text):
    """The case as a program: (text, [(entry, checks)]) or None when it is not convertible.

    checks: (kind, tolerance) per checked value, in the order of the returned pairs."""
    if "check." not in text:
        return None
    out, entries = [], []
    lines = []
    for line in text.split("\n"):  # a check spread over lines becomes one line
        if lines and lines[-1].lstrip().startswith("check.") and " : " not in lines[-1]:
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    current = None  # (name, checks, returned, types, header index in out)
    for line in lines:
        m = FUNC.match(line)
        if m and m.group(2).strip() == "":
            current = {"name": m.group(1), "checks": [], "ret": [], "types": [], "head": len(out)}
            out.append(line)
            continue
        if current is not None:
            c = CONST.match(line)
            p = PAIR.match(line)
            if c:
                indent, kind, value, rest = c.groups()
                literal, tol, typ = split_type(rest)
                k = len(current["ret"]) // 2
                out.append(f"{indent}%hhlo_expected_{k} = stablehlo.constant {literal} : {typ}")
                current["ret"] += [value, f"%hhlo_expected_{k}"]
                current["types"] += [typ, typ]
                current["checks"].append(("eq" if kind == "expect_eq_const" else "almost", tol, typ))
                continue
            if p:
                indent, kind, a, b, rest = p.groups()
                rest, tol = strip_attrs(rest)
                t = TOL.search(rest)
                if t:
                    tol = float(t.group(1))
                typ = rest.rsplit(":", 1)[1].strip().split(",")[0].strip()
                current["ret"] += [a, b]
                current["types"] += [typ, typ]
                current["checks"].append(("eq" if kind == "expect_eq" else "almost", tol, typ))
                continue
            if line.strip().startswith("check."):
                return None  # a check we do not convert
            if re.match(r"^\s{2}(func\.)?return\s*$", line) and current["checks"]:
                ind = re.match(r"^(\s*)", line).group(1)
                out.append(f"{ind}func.return {', '.join(current['ret'])} : {', '.join(current['types'])}")
                head = out[current["head"]]
                out[current["head"]] = re.sub(
                    r"\)\s*(->\s*\(\s*\))?\s*\{\s*$", f") -> ({', '.join(current['types'])}) {{", head
                )
                entries.append((current["name"], current["checks"]))
                current = None
                continue
        out.append(line)
    if not entries:
        return None
    return "\n".join(out), entries


def compare(actual, expected, kind, tol, tensor_type):
    if actual.shape != expected.shape:
        return False
    actual, expected = as_numbers(actual, tensor_type), as_numbers(expected, tensor_type)
    # A raw-byte type without its NumPy type (np.void); ml_dtypes' types also have kind 'V'
    # (bfloat16, float8_*, int4, ...) but compare by value, below.
    if actual.dtype.type is np.void:
        return actual.tobytes() == expected.tobytes()
    if actual.dtype.kind not in "biufc":  # ml_dtypes: compare as float64 (exact for these types)
        actual, expected = actual.astype(np.float64), expected.astype(np.float64)
    if kind == "eq":
        if actual.dtype.kind in "fc":
            return bool(np.all((actual == expected) | (np.isnan(actual) & np.isnan(expected))))
        return bool(np.array_equal(actual, expected))
    t = 1e-4 if tol is None else tol
    a = actual.astype(np.complex128 if actual.dtype.kind == "c" else np.float64)
    e = expected.astype(a.dtype)
    return bool(np.allclose(a, e, rtol=t, atol=t, equal_nan=True))


def run_entry(hhlo, path, entry, checks, outdir):
    os.makedirs(outdir, exist_ok=True)
    r = subprocess.run(
        [hhlo, "run", path, "--entry", entry, "-o", outdir, "--timeout", "60"],
        capture_output=True, text=True,
    )
    if r.returncode != 0:
        return "refused", (r.stderr or r.stdout).strip().split("\n")[0][:300]
    files = sorted(
        (f for f in os.listdir(outdir) if f.endswith(".npy")), key=lambda f: int(re.sub(r"\D", "", f) or 0)
    )
    arrays = [np.load(os.path.join(outdir, f)) for f in files]
    for k, (kind, tol, typ) in enumerate(checks):
        ok = compare(arrays[2 * k], arrays[2 * k + 1], kind, tol, typ)
        if not ok:
            return "wrong", f"check {k}: got {arrays[2 * k].tolist()} expected {arrays[2 * k + 1].tolist()}"[:300]
    return "passed", ""


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def has_tests(root):
    return any(n.endswith(".mlir") for _, _, names in os.walk(root) for n in names)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkout", help="a StableHLO checkout: its stablehlo/tests/interpret/**/*.mlir are run")
    ap.add_argument(
        "--hhlo",
        default=os.path.join(REPO, "build", "tools", "hhlo", "hhlo"),
        help="the hhlo executable (default: build/tools/hhlo/hhlo of this script's repository)",
    )
    ap.add_argument("--json", metavar="OUT", help="also write the counts and every case's result to this JSON file")
    ap.add_argument("--only", default="", metavar="NAME_SUBSTRING", help="run only the files whose path holds this")
    ap.add_argument(
        "--show",
        default="fail",
        choices=["fail", "refused", "all", "none"],
        help="which cases to print one line for (default fail: the wrong and refused ones)",
    )
    a = ap.parse_args()
    if not (os.path.isfile(a.hhlo) and os.access(a.hhlo, os.X_OK)):
        print(f"interpret_suite.py: error: no hhlo executable at {a.hhlo} (build it, or give --hhlo)", file=sys.stderr)
        return 2
    root = os.path.join(a.checkout, "stablehlo", "tests", "interpret")
    if not has_tests(root):
        print(f"interpret_suite.py: error: no tests under {root}", file=sys.stderr)
        return 2
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for dirpath, _, names in sorted(os.walk(root)):
            for name in sorted(names):
                if not name.endswith(".mlir"):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                if a.only and a.only not in rel:
                    continue
                src = open(path).read()
                run_line = re.search(r"//\s*RUN:(.*)", src)
                if run_line and ("stablehlo-opt" in run_line.group(1) and "chlo-legalize" not in run_line.group(1)
                                 or "--args" in run_line.group(1) or run_line.group(1).strip().startswith("not ")):
                    results.append({"file": rel, "case": 0, "status": "not convertible", "why": "RUN line"})
                    continue
                for n, case in enumerate(src.split("\n// -----\n")):
                    conv = convert_case(case)
                    if conv is None:
                        results.append({"file": rel, "case": n, "status": "not convertible", "why": "checks"})
                        continue
                    text, entries = conv
                    prog = os.path.join(tmp, f"case_{len(results)}.mlir")
                    with open(prog, "w") as f:
                        f.write(text)
                    for entry, checks in entries:
                        status, why = run_entry(a.hhlo, prog, entry, checks, os.path.join(tmp, f"o{len(results)}"))
                        results.append({"file": rel, "case": n, "entry": entry, "status": status, "why": why})
    counts = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    for r in results:
        if a.show == "all" or (a.show == "fail" and r["status"] in ("wrong", "refused")) or (
            a.show == "refused" and r["status"] == "refused"
        ):
            print(f"{r['status']:8} {r['file']}#{r['case']} @{r.get('entry', '')}: {r['why']}")
    print(json.dumps(counts))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"counts": counts, "results": results}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
