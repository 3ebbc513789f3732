//! The report (`.report()`): what the analyses found and did, in words a CUDA programmer
//! reads.

use super::barriers::{barrier_indices, ordered_by, Removed};
use super::hazard;
use crate::ir::*;
use std::fmt::Write as _;

/// What the analyses found and did, for `.report()`.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The text of the report.
    pub text: String,
    /// The block rank the shared-memory proof assumes (1: x only; 2: x and y; 3: all).
    pub block_rank: u8,
    /// Every shared-memory access is covered by the hazard proof (none sits in `unsafe`), so
    /// the simulator may skip its shared-memory race detection.
    pub shared_proven: bool,
    /// The kernel's warp operations need whole warps: they were proven warp-uniform for blocks
    /// whose x extent is a multiple of 32 (a condition like `thread_idx().x < 32`), or they
    /// multiply matrix fragments, which take all 32 lanes. Launches must have such blocks.
    pub whole_warps: bool,
    /// The `&mut` buffers each thread of a one-dimensional launch owns one element of (see
    /// [`super::exclusive`]): the simulator detects no races on them in such launches.
    pub exclusive: Vec<Handle<Array>>,
}

/// Whether any shared-memory access sits inside an `unsafe` block (the proof skips those).
pub(super) fn unsafe_shared_access(k: &Kernel) -> bool {
    let shared = |a: Handle<Array>| matches!(k.arrays.get(a).kind, ArrayKind::Shared { .. });
    let reads_shared = |e: Handle<Expr>| {
        visit::any_expr(
            k,
            e,
            &mut |x| matches!(x, Expr::Load { array, .. } | Expr::UniformLoad { array, .. } if shared(*array)),
        )
    };
    let mut found = false;
    visit::for_each_stmt(&k.body, false, &mut |s, in_unsafe| {
        found |= in_unsafe
            && (s.operands().into_iter().any(reads_shared)
                || matches!(s, Stmt::Assign { place: Place::Element { array, .. }, .. } | Stmt::Atomic { array, .. } | Stmt::AsyncCopy { dst: array, .. } if shared(*array)));
    });
    found
}

pub(super) fn report(checked: &Checked, removed: &[Removed]) -> Report {
    let k = &checked.kernel;
    let mut t = String::new();
    let mode = match k.options.sync {
        SyncMode::Check => "check",
        SyncMode::Auto => "auto",
    };
    let _ = writeln!(t, "kernel `{}` (sync = \"{mode}\")", k.name);
    let shared: Vec<_> = k
        .arrays
        .iter()
        .filter_map(|(_, a)| match &a.kind {
            ArrayKind::Shared { dims, .. } => Some((a, dims)),
            _ => None,
        })
        .collect();
    let _ = writeln!(t, "shared arrays:");
    if shared.is_empty() {
        let _ = writeln!(t, "  none");
    }
    let mut total = 0;
    for (a, dims) in &shared {
        if let ArrayKind::Shared {
            len_param: Some(n), ..
        } = &a.kind
        {
            let what = match k.param_named(n).map(|p| p.source) {
                Some(ParamSource::ModuleConst) => "the module constant",
                Some(ParamSource::ArrayLength) => "the value of",
                _ => "the const parameter",
            };
            let _ = writeln!(
                t,
                "  {}: [{}; {n}] (sized at launch by {what} `{n}`)",
                a.name, a.elem
            );
            continue;
        }
        if a.kind.is_dynamic() {
            let _ = writeln!(
                t,
                "  {}: [{}] (dynamic: `Launch::shared_bytes` sizes it)",
                a.name, a.elem
            );
            continue;
        }
        let count: u64 = dims.iter().product();
        let bytes = count * a.elem.size_bytes();
        total += bytes;
        let ty = dims
            .iter()
            .rev()
            .fold(a.elem.to_string(), |acc, d| format!("[{acc}; {d}]"));
        let _ = writeln!(t, "  {}: {ty}, {bytes} bytes", a.name);
    }
    if !shared.is_empty() {
        let _ = writeln!(t, "  total: {total} bytes per block (static)");
    }
    let indices = barrier_indices(&k.body);
    let _ = writeln!(
        t,
        "barriers: {} (so at most {} phases per pass)",
        indices.len(),
        indices.len() + 1
    );
    for index in &indices {
        let b = &k.barriers[*index];
        let origin = match &b.origin {
            BarrierOrigin::Written => "written".to_string(),
            BarrierOrigin::UniformLoad => "starts `uniform_load`".to_string(),
            BarrierOrigin::Inserted(why) => format!("inserted before this statement: {why}"),
            BarrierOrigin::TrailingSync(h) => {
                format!(
                    "trailing barrier of helper `{h}` (it writes shared memory), after this call"
                )
            }
        };
        let orders: Vec<String> = ordered_by(checked, *index)
            .iter()
            .map(|h| {
                format!(
                    "{} on `{}` (line {} -> line {})",
                    h.kind.name(),
                    k.arrays.get(h.array).name,
                    h.first.span.start().line,
                    h.second.span.start().line
                )
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let what = if orders.is_empty() {
            "orders no shared-memory access".to_string()
        } else {
            format!("orders {}", orders.join(", "))
        };
        let _ = writeln!(t, "  line {}: {origin}; {what}", b.span.start().line);
    }
    if !removed.is_empty() {
        let _ = writeln!(t, "barriers removed or flagged:");
        for r in removed {
            let _ = writeln!(t, "  line {}: {}", r.span.start().line, r.why);
        }
    }
    let rank = if shared.is_empty() {
        3
    } else {
        hazard::thread_rank(k)
    };
    if rank < 3 {
        let dims = if rank == 1 {
            "one-dimensional (y = z = 1)"
        } else {
            "two-dimensional (z = 1)"
        };
        let _ = writeln!(
            t,
            "launch: the shared-memory proof assumes {dims} blocks; launches are checked"
        );
    }
    let exclusive = super::exclusive::grid_exclusive(k);
    let mut said = Vec::new();
    for a in &exclusive {
        // A slice of structs or arrays: its name once, for all its leaves.
        let array = k.arrays.get(*a);
        let name = array.field.as_ref().map_or(&array.name, |f| &f.base);
        if said.contains(&name) {
            continue;
        }
        said.push(name);
        let _ = writeln!(
            t,
            "simulator: `{name}` is one element per thread (`global_idx().x`): no race detection on it in one-dimensional launches"
        );
    }
    Report {
        text: t,
        block_rank: rank as u8,
        shared_proven: !unsafe_shared_access(k),
        whole_warps: false,
        exclusive,
    }
}
