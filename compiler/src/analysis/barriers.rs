//! Barrier placement and removal, on the IR: `sync = "auto"` inserts the barriers that
//! remove every hazard (at the latest uniform point, hoisted out of loops that do not need
//! them); barriers that order nothing are reported (and removed in auto mode); a helper's
//! trailing barrier is dropped where its call makes it redundant; two adjacent barriers are
//! merged.
//!
//! Takes the checked kernel; changes its body only by inserting and removing
//! `Stmt::Barrier`s (statement ids of the others are kept); records every removal for the
//! report. Every decision is made by re-running the analyses on the kernel as it stands.

use super::diagnose::hazard_diagnostic;
use super::hazard::{self, Hazard, Query};
use super::uniformity;
use crate::diag::{Ctxt, Diagnostic};
use crate::ir::*;

/// A barrier the compiler took out, and why.
pub(super) struct Removed {
    pub(super) span: Span,
    pub(super) why: String,
}

/// `sync = "auto"`: inserts barriers until no hazard is left.
pub(super) fn place_barriers(checked: &mut Checked, cx: &mut Ctxt) -> Result<(), Vec<Diagnostic>> {
    for _ in 0..64 {
        let mut scratch = Ctxt::new();
        let uni = uniformity::analyze(&mut scratch, &checked.kernel);
        if scratch.has_errors() {
            return Err(scratch.into_errors());
        }
        let hazards = hazard::find_hazards(&checked.kernel, &checked.types, &uni, Query::PLACE);
        let Some(h) = hazards.first() else {
            return Ok(());
        };
        let name = checked.kernel.arrays.get(h.array).name.clone();
        let Some(p) = &h.fix else {
            // The error shows a pair of threads: search one for this hazard.
            let reported =
                hazard::find_hazards(&checked.kernel, &checked.types, &uni, Query::REPORT);
            let at = |x: &Hazard| (pair_key(x), x.kind);
            let h = reported.iter().find(|r| at(r) == at(h)).unwrap_or(h);
            let mut d = hazard_diagnostic(&checked.kernel, h);
            d.message = format!(
                "`sync = \"auto\"` cannot place a barrier for this {} on `{name}`",
                h.kind.name()
            );
            cx.push(d);
            return Err(std::mem::take(cx).into_errors());
        };
        let landing = match h.in_flight {
            Some(f) => format!(
                "after `{}` placed there for the asynchronous {}: ",
                super::diagnose::landing_code(f).trim_end_matches(';'),
                if f.wgmma { "multiply" } else { "copy" }
            ),
            None => String::new(),
        };
        let why = format!(
            "{landing}{} on `{name}` between line {} and line {}{}",
            h.kind.name(),
            h.first.span.start().line,
            h.second.span.start().line,
            if h.loop_carried {
                " (across loop iterations)"
            } else {
                ""
            }
        );
        // A copy in flight lands at a wait of this thread's (placed where the barrier would
        // go), after a commit where its group is still open; the barrier then shows it to the
        // other threads (one that orders nothing is removed later).
        if let Some(f) = h.in_flight {
            let mut stmts = Vec::new();
            let pending = f.wait_arg().map_or(0, u32::from);
            if f.wgmma {
                if f.wait_arg().is_none() {
                    stmts.push(Stmt::WgmmaCommit);
                }
                stmts.push(Stmt::WgmmaWait { pending });
            } else {
                if f.wait_arg().is_none() {
                    stmts.push(Stmt::AsyncCommit);
                }
                stmts.push(Stmt::AsyncWait { pending });
            }
            for s in stmts {
                if checked.kernel.insert_before(p.stmt, s, p.before).is_none() {
                    cx.error(
                        h.second.span,
                        "internal error: the wait's place was not found",
                    );
                    return Err(std::mem::take(cx).into_errors());
                }
            }
            if f.same_thread {
                continue;
            }
        }
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
pub(super) fn remove_barrier(b: &mut Block, index: usize) -> bool {
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
pub(super) fn barrier_indices(b: &Block) -> Vec<usize> {
    let mut out = Vec::new();
    visit::for_each_stmt(b, false, &mut |s, _| {
        if let Stmt::Barrier { index } = s {
            out.push(*index);
        }
    });
    out
}

/// The pairs of accesses the kernel would have without barrier `index` (shared or global
/// memory, inside `unsafe` or not).
fn hazards_without(checked: &Checked, index: usize) -> Vec<Hazard> {
    let mut body = checked.kernel.body.clone();
    remove_barrier(&mut body, index);
    let k = Kernel {
        body,
        ..checked.kernel.clone()
    };
    let mut scratch = Ctxt::new();
    let uni = uniformity::analyze(&mut scratch, &k);
    hazard::find_hazards(&k, &checked.types, &uni, Query::ORDERING)
}

/// What identifies a pair of accesses across runs of the analysis.
type PairKey = (usize, (usize, usize), (usize, usize), bool, bool);

fn pair_key(h: &Hazard) -> PairKey {
    let at = |s: Span| (s.start().line, s.start().column);
    (
        h.array.index(),
        at(h.first.span),
        at(h.second.span),
        h.first.write,
        h.second.write,
    )
}

/// The pairs of accesses barrier `index` orders: those the kernel would have without it and
/// does not have with it (a pair no barrier orders, such as every thread writing `out[0]`, is
/// not the barrier's).
pub(super) fn ordered_by(checked: &Checked, index: usize) -> Vec<Hazard> {
    let now: std::collections::HashSet<PairKey> =
        hazards_now(checked).iter().map(pair_key).collect();
    hazards_without(checked, index)
        .into_iter()
        .filter(|h| !now.contains(&pair_key(h)))
        .collect()
}

/// Barriers that order nothing at all (no pair of accesses of two threads of a block, in
/// shared or global memory, inside `unsafe` or not): reported, and in auto mode removed (one at
/// a time, since removing one can make another necessary). An access the proof cannot decide
/// counts as ordered, so a barrier is only removed when that is proven harmless.
pub(super) fn remove_useless(checked: &mut Checked, removed: &mut Vec<Removed>, remove: bool) {
    for index in barrier_indices(&checked.kernel.body) {
        if checked.kernel.barriers[index].origin == BarrierOrigin::UniformLoad {
            continue;
        }
        if ordered_by(checked, index).is_empty() {
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

/// Every pair of accesses no barrier orders in the kernel as it stands (divergence not
/// reported).
fn hazards_now(checked: &Checked) -> Vec<Hazard> {
    let mut scratch = Ctxt::new();
    let uni = uniformity::analyze(&mut scratch, &checked.kernel);
    hazard::find_hazards(&checked.kernel, &checked.types, &uni, Query::ORDERING)
}

/// A helper's trailing barrier is dropped at a call where it orders nothing (README, "The kernel language":
/// the call site makes it redundant), before any check, in both modes: the programmer did not
/// write it, so it is neither reported as useless nor allowed to make a call divergent.
pub(super) fn drop_redundant_trailing(checked: &mut Checked, removed: &mut Vec<Removed>) {
    for index in barrier_indices(&checked.kernel.body) {
        let BarrierOrigin::TrailingSync(helper) = checked.kernel.barriers[index].origin.clone()
        else {
            continue;
        };
        if ordered_by(checked, index).is_empty() {
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
pub(super) fn merge_adjacent(k: &mut Kernel, removed: &mut Vec<Removed>) {
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
