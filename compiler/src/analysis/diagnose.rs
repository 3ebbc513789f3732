//! Hazard diagnostics: the error for a race, naming the array, both accesses, the kind, a
//! pair of threads that collide and the place where one barrier fixes it.

use super::hazard::{self, Hazard};
use crate::diag::Diagnostic;
use crate::ir::*;

pub(super) fn thread_name(t: &[i128; 3], rank: usize) -> String {
    match rank {
        1 => format!("thread {}", t[0]),
        2 => format!("thread ({}, {})", t[0], t[1]),
        _ => format!("thread ({}, {}, {})", t[0], t[1], t[2]),
    }
}

pub(super) fn access_word(write: bool, atomic: bool) -> &'static str {
    match (write, atomic) {
        (_, true) => "atomic",
        (true, false) => "write",
        (false, false) => "read",
    }
}

pub(super) fn hazard_diagnostic(k: &Kernel, h: &Hazard) -> Diagnostic {
    let name = &k.arrays.get(h.array).name;
    let array = match k.arrays.get(h.array).kind {
        ArrayKind::Global { .. } => format!("`{name}` (global memory)"),
        _ => format!("shared array `{name}`"),
    };
    let rank = hazard::thread_rank(k);
    // "Data race" only with a pair of threads that collide; otherwise the proof says what it
    // could not decide.
    let headline = if h.witness.is_some() {
        format!(
            "data race on {array}: {} between two threads in one phase",
            h.kind.name()
        )
    } else {
        format!(
            "cannot prove that two threads never meet on {array} in one phase ({})",
            h.kind.name()
        )
    };
    let mut d = Diagnostic::new(h.second.span, headline);
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
                "for example, {block}, {} does the {first} and {} the {second} of `{}`",
                thread_name(&w.first_thread, rank),
                thread_name(&w.second_thread, rank),
                k.arrays.get(h.array).element_text(&elem)
            ),
        );
    }
    if h.witness.is_none() {
        if let Some(span) = h.unmodelled {
            d = d.label(
                span,
                "the proof cannot model this value (not an affine form of the thread ids)",
            );
        }
        d = d.note("if they never meet, declare the block shape (`#[kernel(block = (x, y))]`), write the index as an affine form of the thread ids, or put the accesses in `unsafe { }` (the simulator checks them at run time)");
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
        None if h.same_statement => d.note(
            "both accesses are in one statement, where no barrier can go between them: read into a variable first, then `sync_block_threads();`, then write (`let v = a[..]; sync_block_threads(); a[i] = v;`)",
        ),
        None => d.note(
            "no single barrier at a point every thread reaches orders these accesses (they sit under divergent control flow): restructure so that the accesses are separated by a barrier outside the branch, or use atomics",
        ),
    };
    d
}
