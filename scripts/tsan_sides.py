#!/usr/bin/env python3
"""Sorts ThreadSanitizer reports by who made each of the two racing accesses (docs/reliability.md).

`make tsan` suppresses every report with a frame in the PJRT plugin (tests/tsan.supp): the plugin is
not instrumented, so TSan sees its copies and frees but not the locks and events that order them.
This script checks that no report of ours hides behind that: run the suites without suppressions,
each writing its reports to files, and give it those files:

  TSAN_OPTIONS="halt_on_error=0 allocator_may_return_null=1 log_path=/tmp/tsan/runtime" \\
    build-tsan/tests/hhlo_runtime_tests --gtest_filter=-Soak.*
  python3 scripts/tsan_sides.py /tmp/tsan/*

Each access is attributed to its first frame outside TSan's interceptors and the C++ headers: the
plugin (an interceptor such as memcpy or free called from pjrt_c_api_cpu_plugin.so), or ours (our
source, the XLA FFI headers compiled into our handlers, gtest). A report is "plugin / plugin",
"ours / plugin", "plugin / none" (TSan did not keep the earlier access's stack) or "ours / ours";
only the last (or one with no plugin side at all) would be a race between two accesses of our code:
the script prints those in full and exits 1 when there is one.
"""
import collections
import re
import sys

PLUGIN = re.compile(r"\((pjrt_c_api_cpu_plugin|xla_cpu_pjrt)\.so\+")
ACCESS = re.compile(r"^(Write|Read|Previous write|Previous read|Atomic|Previous atomic)")


def side(frames):
    """'plugin', 'ours' or 'none' for one access stack."""
    for f in frames:
        if "libtsan.so" in f or "/usr/include/c++/" in f:
            continue
        return "plugin" if PLUGIN.search(f) else "ours"
    return "none"


def reports(path):
    text = open(path, errors="replace").read()
    for block in text.split("==================")[1:]:
        m = re.search(r"WARNING: ThreadSanitizer: (.*?) \(", block)
        if not m:
            continue
        sections, cur = [], None
        for line in block.splitlines():
            if re.match(r"\s+#\d+ ", line):
                if cur is not None:
                    cur[1].append(line.strip())
            elif line.strip():
                cur = (line.strip(), [])
                sections.append(cur)
        order = ["ours", "plugin", "none"]
        sides = sorted((side(f) for t, f in sections if ACCESS.match(t)), key=order.index)
        yield m.group(1), " / ".join(sides) or "no access stack", block


def main(paths):
    counts = collections.Counter()
    ours = []
    for p in paths:
        for kind, sides, block in reports(p):
            counts[(kind, sides)] += 1
            ours_only = sides in ("ours / ours", "ours / none", "ours", "no access stack")
            if ours_only or kind != "data race":
                ours.append((p, block))
    for (kind, sides), n in sorted(counts.items()):
        print(f"{n:6d}  {kind}: {sides}")
    for p, block in ours:
        print(f"---- {p}\n{block}")
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
