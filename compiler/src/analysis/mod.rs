//! The barrier analyses (DESIGN.md §3). They read the checked IR and return side tables;
//! `sync = "auto"`'s transform changes the kernel, after which everything runs again on the
//! transformed kernel, so the checks always see the form the back ends emit.
//!
//! - [`uniformity`]: which values and which control flow are block-uniform; divergent barriers.
//! - [`hazard`]: shared-memory races within a phase, decided with [`affine`].
//! - [`check`]: runs both, places or removes barriers in auto mode, merges adjacent barriers,
//!   and writes the [`Report`].

pub mod affine;
pub mod hazard;
pub mod uniformity;

#[cfg(test)]
mod tests;

use crate::diag::{Ctxt, Diagnostic};
use crate::ir::*;
use hazard::Hazard;
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
}

/// Whether any shared-memory access sits inside an `unsafe` block (the proof skips those).
fn unsafe_shared_access(k: &Kernel) -> bool {
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
                || matches!(s, Stmt::Assign { place: Place::Element { array, .. }, .. } | Stmt::Atomic { array, .. } if shared(*array)));
    });
    found
}

/// A barrier the compiler took out, and why.
struct Removed {
    span: Span,
    why: String,
}

/// Runs every check on a checked kernel; in `sync = "auto"` mode, also places and removes
/// barriers. Returns the report, or every error.
pub fn check(checked: &mut Checked) -> Result<Report, Vec<Diagnostic>> {
    let mut removed: Vec<Removed> = Vec::new();
    // Two adjacent barriers are one.
    merge_adjacent(&mut checked.kernel, &mut removed);
    drop_redundant_trailing(checked, &mut removed);
    let mode = checked.kernel.options.sync;
    let mut cx = Ctxt::new();
    let uni = uniformity::analyze(&mut cx, &checked.kernel);
    if cx.has_errors() {
        return Err(cx.into_errors());
    }
    let hazards = hazard::find_hazards(
        &checked.kernel,
        &checked.types,
        &uni,
        mode == SyncMode::Check,
    );
    match mode {
        SyncMode::Check => {
            if !hazards.is_empty() {
                let mut seen = std::collections::HashSet::new();
                for h in &hazards {
                    // One error per pair of source locations.
                    if seen.insert((
                        format!("{:?}", h.first.span.lo),
                        format!("{:?}", h.second.span.lo),
                    )) {
                        cx.push(hazard_diagnostic(&checked.kernel, h));
                    }
                }
                return Err(cx.into_errors());
            }
        }
        SyncMode::Auto => {
            place_barriers(checked, &mut cx)?;
            remove_useless(checked, &mut removed, true);
            merge_adjacent(&mut checked.kernel, &mut removed);
        }
    }
    if mode == SyncMode::Check {
        remove_useless(checked, &mut removed, false);
    }
    Ok(report(checked, &removed))
}

fn thread_name(t: &[i128; 3], rank: usize) -> String {
    match rank {
        1 => format!("thread {}", t[0]),
        2 => format!("thread ({}, {})", t[0], t[1]),
        _ => format!("thread ({}, {}, {})", t[0], t[1], t[2]),
    }
}

fn access_word(write: bool, atomic: bool) -> &'static str {
    match (write, atomic) {
        (_, true) => "atomic",
        (true, false) => "write",
        (false, false) => "read",
    }
}

fn hazard_diagnostic(k: &Kernel, h: &Hazard) -> Diagnostic {
    let name = &k.arrays.get(h.array).name;
    let rank = hazard::thread_rank(k);
    let mut d = Diagnostic::new(
        h.second.span,
        format!(
            "data race on shared array `{name}`: {} between two threads in one phase",
            h.kind.name()
        ),
    );
    let first = access_word(h.first.write, h.first.atomic);
    let mut first_label = format!("the {first} of `{name}` by another thread");
    if h.loop_carried {
        first_label.push_str(", in the previous iteration of the loop, with no barrier since");
    } else {
        first_label.push_str(", with no barrier in between");
    }
    d = d.label(h.first.span, first_label);
    if let Some(w) = &h.witness {
        let elem: String = w.element.iter().map(|i| format!("[{i}]")).collect();
        let second = access_word(h.second.write, h.second.atomic);
        let threads: i128 = w.block_dim[..rank].iter().product();
        let block = match rank {
            1 => format!("with {threads} threads per block"),
            2 => format!(
                "with blocks of {} x {} threads",
                w.block_dim[0], w.block_dim[1]
            ),
            _ => format!(
                "with blocks of {} x {} x {} threads",
                w.block_dim[0], w.block_dim[1], w.block_dim[2]
            ),
        };
        d = d.label(
            h.second.span,
            format!(
                "for example, {block}, {} does the {first} and {} the {second} of `{name}{elem}`",
                thread_name(&w.first_thread, rank),
                thread_name(&w.second_thread, rank)
            ),
        );
    }
    if h.same_site {
        d = d.note("several threads run this access on one element in one phase: give each thread its own element, guard it so that one thread does it (e.g. `if t == 0`), or use an atomic");
        return d;
    }
    d = match &h.fix {
        Some(p) => d.note(format!(
            "insert `sync_block_threads();` before line {} (a point every thread of the block reaches), or let the compiler place it: `#[kernel(sync = \"auto\")]`",
            p.before.start().line
        )),
        None => d.note(
            "no single barrier at a point every thread reaches orders these accesses (they sit under divergent control flow): restructure so that the accesses are separated by a barrier outside the branch, or use atomics",
        ),
    };
    d
}

/// `sync = "auto"`: inserts barriers until no hazard is left.
fn place_barriers(checked: &mut Checked, cx: &mut Ctxt) -> Result<(), Vec<Diagnostic>> {
    for _ in 0..64 {
        let mut scratch = Ctxt::new();
        let uni = uniformity::analyze(&mut scratch, &checked.kernel);
        if scratch.has_errors() {
            return Err(scratch.into_errors());
        }
        let hazards = hazard::find_hazards(&checked.kernel, &checked.types, &uni, false);
        let Some(h) = hazards.first() else {
            return Ok(());
        };
        let name = checked.kernel.arrays.get(h.array).name.clone();
        let Some(p) = &h.fix else {
            let mut d = hazard_diagnostic(&checked.kernel, h);
            d.message = format!(
                "`sync = \"auto\"` cannot place a barrier for this {} on `{name}`",
                h.kind.name()
            );
            cx.push(d);
            return Err(std::mem::take(cx).into_errors());
        };
        let why = format!(
            "{} on `{name}` between line {} and line {}{}",
            h.kind.name(),
            h.first.span.start().line,
            h.second.span.start().line,
            if h.loop_carried {
                " (across loop iterations)"
            } else {
                ""
            }
        );
        let index = checked.kernel.barriers.len();
        checked.kernel.barriers.push(Barrier {
            span: p.before,
            origin: BarrierOrigin::Inserted(why),
            calls: Vec::new(),
        });
        if checked
            .kernel
            .insert_before(p.stmt, Stmt::Barrier { index }, p.before)
            .is_none()
        {
            cx.error(
                h.second.span,
                "internal error: the barrier's place was not found",
            );
            return Err(std::mem::take(cx).into_errors());
        }
    }
    cx.error(
        checked.kernel.name_span,
        "`sync = \"auto\"` gave up after placing 64 barriers",
    );
    Err(std::mem::take(cx).into_errors())
}

/// Removes the statement `Barrier { index }`; returns whether it was found.
fn remove_barrier(b: &mut Block, index: usize) -> bool {
    let mut found = false;
    visit::for_each_block_mut(b, &mut |b| {
        if let Some(pos) = b
            .stmts
            .iter()
            .position(|s| matches!(s, Stmt::Barrier { index: i } if *i == index))
        {
            b.remove(pos);
            found = true;
        }
    });
    found
}

/// The barriers of a block and of the blocks nested in it, in program order.
fn barrier_indices(b: &Block) -> Vec<usize> {
    let mut out = Vec::new();
    visit::for_each_stmt(b, false, &mut |s, _| {
        if let Stmt::Barrier { index } = s {
            out.push(*index);
        }
    });
    out
}

/// The hazards the kernel would have without barrier `index`.
fn hazards_without(checked: &Checked, index: usize) -> Vec<Hazard> {
    let mut body = checked.kernel.body.clone();
    remove_barrier(&mut body, index);
    let k = Kernel {
        body,
        ..checked.kernel.clone()
    };
    let mut scratch = Ctxt::new();
    let uni = uniformity::analyze(&mut scratch, &k);
    hazard::find_hazards(&k, &checked.types, &uni, false)
}

/// Barriers that order nothing: reported, and in auto mode removed (one at a time, since
/// removing one can make another necessary).
fn remove_useless(checked: &mut Checked, removed: &mut Vec<Removed>, remove: bool) {
    for index in barrier_indices(&checked.kernel.body) {
        if checked.kernel.barriers[index].origin == BarrierOrigin::UniformLoad {
            continue;
        }
        if hazards_without(checked, index).is_empty() {
            let span = checked.kernel.barriers[index].span;
            if remove {
                remove_barrier(&mut checked.kernel.body, index);
                removed.push(Removed {
                    span,
                    why: "it orders no shared-memory access: removed".into(),
                });
            } else {
                removed.push(Removed {
                    span,
                    why: "it orders no shared-memory access (kept; `sync = \"auto\"` removes it)"
                        .into(),
                });
            }
        }
    }
}

/// The hazards of the kernel as it stands (divergence not reported).
fn hazards_now(checked: &Checked) -> Vec<Hazard> {
    let mut scratch = Ctxt::new();
    let uni = uniformity::analyze(&mut scratch, &checked.kernel);
    hazard::find_hazards(&checked.kernel, &checked.types, &uni, false)
}

/// A helper's trailing barrier is dropped at a call where it orders nothing (DESIGN.md §2:
/// the call site makes it redundant), before any check, in both modes: the programmer did not
/// write it, so it is neither reported as useless nor allowed to make a call divergent.
fn drop_redundant_trailing(checked: &mut Checked, removed: &mut Vec<Removed>) {
    for index in barrier_indices(&checked.kernel.body) {
        let BarrierOrigin::TrailingSync(helper) = checked.kernel.barriers[index].origin.clone()
        else {
            continue;
        };
        let before = hazards_now(checked).len();
        if hazards_without(checked, index).len() <= before {
            remove_barrier(&mut checked.kernel.body, index);
            removed.push(Removed {
                span: checked.kernel.barriers[index].span,
                why: format!(
                    "trailing barrier of helper `{helper}`: dropped, nothing after this call needs it"
                ),
            });
        }
    }
}

/// A barrier right after another barrier adds nothing: keep one.
fn merge_adjacent(k: &mut Kernel, removed: &mut Vec<Removed>) {
    let barriers = &k.barriers;
    visit::for_each_block_mut(&mut k.body, &mut |b| {
        let mut i = 1;
        while i < b.stmts.len() {
            if let (Stmt::Barrier { index: first }, Stmt::Barrier { index: second }) =
                (&b.stmts[i - 1], &b.stmts[i])
            {
                // The barrier of a `uniform_load` stays (its read follows it).
                let (kept, dropped, drop) =
                    if barriers[*second].origin == BarrierOrigin::UniformLoad {
                        (*second, *first, i - 1)
                    } else {
                        (*first, *second, i)
                    };
                removed.push(Removed {
                    span: barriers[dropped].span,
                    why: format!(
                        "it directly follows the barrier at line {}: merged",
                        barriers[kept].span.start().line
                    ),
                });
                b.remove(drop);
                continue;
            }
            i += 1;
        }
    });
}

fn report(checked: &Checked, removed: &[Removed]) -> Report {
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
            let _ = writeln!(
                t,
                "  {}: [{}; {n}] (sized at launch by the const parameter `{n}`)",
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
        let orders: Vec<String> = hazards_without(checked, *index)
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
    Report {
        text: t,
        block_rank: rank as u8,
        shared_proven: !unsafe_shared_access(k),
    }
}
