"""Plots the ratios of one `bench_gpu` run: `python3 benches/plot.py bench.log docs/bench.png`.

Reads the markdown rows `bench_gpu` prints (kernel, cuphase ms, hand-written ms, ratio,
throughput) and draws, per kernel, cuphase's speed relative to the hand-written CUDA C of the
same algorithm (1.0 is equal) and, where the row states one, the fraction of the
device-to-device copy bandwidth or of cuBLAS it reaches."""

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
        yield cells[0].split(",")[0].split(" (")[0], ratio, float(limit.group(1)) / 100 if limit else None


def main(log, png):
    data = list(rows(log))
    names = [d[0] for d in data]
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(data) + 1.5))
    y = range(len(data))
    ax.barh([i + 0.2 for i in y], [d[1] for d in data], height=0.4, label="hand-written CUDA C time / cuphase time")
    ax.barh([i - 0.2 for i in y], [d[2] or 0 for d in data], height=0.4, label="fraction of the limit (copy bandwidth, or cuBLAS)")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(list(y))
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.2)
    ax.set_title("cuphase on an H200: one bench_gpu run")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.06), ncol=2, fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
