"""Plots one run of the tensor-core benchmarks:
`python3 benches/plot_tensor.py bench.txt docs/tensor-h100.png [--ab] [--only k1,k2]`, where
`bench.txt` holds what `benches/attention.py` and `benches/mma_gemm.py` (bf16, then
`--tf32-only`) printed. The A/B variants (`_ab` in their names) are left out unless `--ab`;
`--only` keeps those kernels (and Triton).

Three panels, one bar per kernel and size: the bf16 GEMMs and the TF32 GEMMs as fractions of
cuBLAS in the same run (the issue's targets drawn as lines: 0.60 for `mma.sync`, 0.85 for
wgmma), and the fused attention as a fraction of torch's `scaled_dot_product_attention`
(FlashAttention) in the same run, Triton's tutorial-structured kernel beside it."""

import re
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


# A table's first header cell, and the title of its panel.
PANELS = {
    "bf16 GEMM": "bf16 GEMM (of cuBLAS)",
    "TF32 GEMM": "TF32 GEMM (of cuBLAS TF32)",
    "fused attention": "attention forward, d = 64 (of torch SDPA)",
}


def parse(path, ab=False, only=None):
    """`{panel: {kernel: {size: ratio}}}` from the markdown rows of the three tables."""
    panels = defaultdict(lambda: defaultdict(dict))
    panel = None
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5:
            continue
        head = cells[0]
        title = next((t for h, t in PANELS.items() if head.startswith(h)), None)
        if title is not None:
            panel = title
            continue
        if panel is None:
            continue
        try:
            ratio = float(cells[4])
        except ValueError:
            continue
        size = head.replace("^3", "")
        kernel = re.sub(r"^Triton.*", "Triton", cells[1])
        kernel = kernel.replace("cuphase ", "")
        if kernel == "torch SDPA" or ("_ab" in kernel and not ab):
            continue
        if only and kernel != "Triton" and kernel not in only:
            continue
        panels[panel][kernel][size] = ratio
    return panels


def main(log, out, ab=False, only=None):
    panels = parse(log, ab, only)
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    for ax, (title, kernels) in zip(axes[0], panels.items()):
        sizes = sorted({s for r in kernels.values() for s in r}, key=int)
        width = 0.8 / max(1, len(kernels))
        for i, (name, ratios) in enumerate(sorted(kernels.items())):
            xs = [j + i * width for j, s in enumerate(sizes) if s in ratios]
            ys = [ratios[s] for s in sizes if s in ratios]
            ax.bar(xs, ys, width, label=name)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(sizes))])
        ax.set_xticklabels(sizes)
        ax.set_xlabel("size (n for n^3 GEMMs, sequence length for attention)")
        ax.set_ylabel("speed relative to the reference")
        ax.set_title(title)
        if "GEMM" in title:
            ax.axhline(0.60, color="gray", linestyle="--", linewidth=1)
        if title.startswith("bf16"):
            ax.axhline(0.85, color="gray", linestyle=":", linewidth=1)
        ax.set_ylim(0, 1.25)
        ax.legend(fontsize=7, loc="upper right", ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    args = sys.argv[1:]
    only = args[args.index("--only") + 1].split(",") if "--only" in args else None
    main(args[0], args[1], ab="--ab" in args, only=only)
