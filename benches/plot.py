"""Plots the ratios of one `bench_gpu` run:
`python3 benches/plot.py bench.log docs/bench.png [peers.log triton.log ...]`.

Reads the markdown rows `bench_gpu` prints (kernel, cuphase ms, hand-written ms, ratio,
throughput) and draws, per kernel, cuphase's speed relative to the hand-written CUDA C of the
same algorithm (1.0 is equal), where the row states one the fraction of the device-to-device
copy bandwidth or of cuBLAS it reaches, and, given the peers' logs of the same run, Triton's
time over cuphase's (above 1.0: cuphase is faster)."""

import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5:
            continue
        try:
            ratio = float(cells[3])
        except ValueError:
            continue
        limit = re.search(r"([\d.]+)% of (the copy|cuBLAS)", cells[4]) or re.search(r"\((\d+)% of 4300", cells[4])
        ours = float(cells[1])
        name = cells[0].split(",")[0]
        if name.count("(") != name.count(")"):
            name = name.split(" (")[0]
        yield name, ours, ratio, float(limit.group(1)) / 100 if limit else None


# The Triton row (of peers.py or peers_triton.py) of each suite kernel, by a word of its name.
TRITON = {
    "copy4": "Triton copy,",
    "saxpy4": "Triton saxpy,",
    "reverse4": "Triton reverse4",
    "reduce_sum": "Triton reduce_sum",
    "softmax": "Triton softmax",
    "layernorm": "Triton layernorm",
    "transpose": "Triton transpose",
    "histogram": "Triton histogram",
    "block_scan": "Triton block_scan",
    "stencil": "Triton stencil",
    "sgemm": "Triton sgemm (tutorial, ieee, best",
}


def triton_times(paths):
    """Milliseconds of each Triton row of the peers' logs, by the row's name."""
    out = {}
    for path in paths:
        for line in open(path):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 3 and cells[0].startswith("Triton"):
                try:
                    out[cells[0]] = float(cells[1])
                except ValueError:
                    pass
    return out


def triton_ratio(name, ours, times):
    key = TRITON.get(name.split(" (")[0])
    hits = [t for n, t in times.items() if key and n.startswith(key)]
    return hits[0] / ours if hits else None


def main(log, png, peers=()):
    data = list(rows(log))
    times = triton_times(peers)
    names = [d[0] for d in data]
    fig, ax = plt.subplots(figsize=(10, 0.6 * len(data) + 1.5))
    y = range(len(data))
    ax.barh([i - 0.27 for i in y], [d[2] for d in data], height=0.27, label="hand-written CUDA C time / cuphase time")
    ax.barh([i for i in y], [d[3] or 0 for d in data], height=0.27, label="fraction of the limit (copy bandwidth, or cuBLAS)")
    tri = [triton_ratio(d[0], d[1], times) or 0 for d in data]
    if any(tri):
        ax.barh([i + 0.27 for i in y], tri, height=0.27, label="Triton time / cuphase time")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(list(y))
    ax.set_yticklabels(names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max([1.3] + [t + 0.1 for t in tri]))
    ax.set_title("cuphase on an H200: one bench_gpu run")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.06), ncol=3, fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
