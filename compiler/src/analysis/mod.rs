//! The barrier analyses (README, "Barrier safety"). They read the checked IR and return side tables;
//! `sync = "auto"`'s transform changes the kernel, after which everything runs again on the
//! transformed kernel, so the checks always see the form the back ends emit.
//!
//! - [`uniformity`]: which values and which control flow are block-uniform; divergent barriers.
//! - [`hazard`]: shared-memory races within a phase, decided with [`affine`].
//! - `wgmma`: the block shape warpgroup multiplies need, and their accumulators in flight.
//! - [`check`]: runs both, places or removes barriers in auto mode, merges adjacent barriers,
//!   and writes the [`Report`].
//! - `barriers`: `sync = "auto"`'s placement and the removal of barriers that order nothing.
//! - `diagnose`: the hazard diagnostics; `report`: the report.
//!
//! Imports point down: this module reads `ir` and reports through `diag`, nothing else.

pub mod affine;
mod barriers;
mod diagnose;
pub mod exclusive;
pub mod hazard;
mod report;
pub mod uniformity;
mod wgmma;

#[cfg(test)]
mod async_tests;
#[cfg(test)]
mod gpuverify_tests;
#[cfg(test)]
mod induction_tests;
#[cfg(test)]
mod ordering_tests;
#[cfg(test)]
mod precision_tests;
#[cfg(test)]
mod shape_tests;
#[cfg(test)]
mod struct_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod warp_tests;
#[cfg(test)]
mod wgmma_tests;

use crate::diag::{Ctxt, Diagnostic};
use crate::ir::*;
use barriers::Removed;
use barriers::{drop_redundant_trailing, merge_adjacent, place_barriers, remove_useless};
use diagnose::hazard_diagnostic;
use report::report;
pub use report::Report;

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
    wgmma::check(&mut cx, &checked.kernel);
    if cx.has_errors() {
        return Err(cx.into_errors());
    }
    let query = match mode {
        SyncMode::Check => hazard::Query::REPORT,
        SyncMode::Auto => hazard::Query::PLACE,
    };
    let hazards = hazard::find_hazards(&checked.kernel, &checked.types, &uni, query);
    match mode {
        SyncMode::Check => {
            if !hazards.is_empty() {
                // One error per pair of source locations: the first found, or the first with a
                // pair of threads to show (for copies in flight, one per access that meets any:
                // the one wait that fixes it lands them all).
                let mut chosen: Vec<(String, String, &hazard::Hazard)> = Vec::new();
                for h in &hazards {
                    let first = match h.in_flight {
                        Some(_) => "a copy in flight".to_string(),
                        None => format!("{:?}", h.first.span.lo),
                    };
                    let key = (first, format!("{:?}", h.second.span.lo));
                    match chosen
                        .iter_mut()
                        .find(|(a, b, _)| (a, b) == (&key.0, &key.1))
                    {
                        Some(c) if c.2.witness.is_none() && h.witness.is_some() => c.2 = h,
                        Some(_) => {}
                        None => chosen.push((key.0, key.1, h)),
                    }
                }
                for (_, _, h) in chosen {
                    cx.push(hazard_diagnostic(&checked.kernel, h));
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
    let mut report = report(checked, &removed);
    report.whole_warps = uni.needs_whole_warps;
    if report.whole_warps {
        let matrices =
            crate::ir::visit::any_stmt(&checked.kernel.body, crate::ir::Stmt::is_matrix_op);
        report.text.push_str(if matrices {
            "launch: warp-wide matrix operations take whole warps: blocks whose x extent is a multiple of 32; launches are checked\n"
        } else {
            "launch: warp operations are warp-uniform for blocks whose x extent is a multiple of 32; launches are checked\n"
        });
    }
    Ok(report)
}
