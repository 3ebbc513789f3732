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
    if let Some(f) = h.in_flight {
        return in_flight_diagnostic(k, h, f);
    }
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

/// The code that lands a copy in flight: `cp_async_wait(n);`, after a commit where its group
/// is not committed yet.
pub(super) fn landing_code(f: hazard::InFlight) -> String {
    let queue = if f.wgmma { "wgmma" } else { "cp_async" };
    match f.wait_arg() {
        Some(n) => format!("{queue}_wait({n});"),
        None => format!("{queue}_commit(); {queue}_wait(0);"),
    }
}

/// An access that meets an asynchronous copy still in flight: the read of a stage before its
/// wait, or a refill of one that other threads may still read.
fn in_flight_diagnostic(k: &Kernel, h: &Hazard, f: hazard::InFlight) -> Diagnostic {
    if f.wgmma {
        return wgmma_in_flight_diagnostic(k, h, f);
    }
    let arr = k.arrays.get(h.array);
    let name = &arr.name;
    let rank = hazard::thread_rank(k);
    let second = access_word(h.second.write, h.second.atomic);
    let headline = if h.witness.is_some() {
        format!("data race on shared array `{name}`: a {second} while an asynchronous copy into it may be in flight")
    } else {
        format!("cannot prove that an asynchronous copy into shared array `{name}` has landed before this {second}")
    };
    let mut d = Diagnostic::new(h.second.span, headline);
    let when = if h.loop_carried {
        ", in an earlier iteration of the loop"
    } else {
        ""
    };
    d = d.label(
        h.first.span,
        format!("the copy into `{name}`{when}: it lands at a `cp_async_wait` that covers its group, and no such wait comes before the {second}"),
    );
    if let Some(w) = &h.witness {
        let elem: String = w.element.iter().map(|i| format!("[{i}]")).collect();
        let who = if w.first_thread == w.second_thread {
            let then = if h.second.write && !h.second.atomic {
                "then writes (or copies into) again".to_string()
            } else {
                format!("then does the {second} of")
            };
            format!(
                "{} copies into and {then}",
                thread_name(&w.first_thread, rank)
            )
        } else {
            format!(
                "{} copies into and {} does the {second} of",
                thread_name(&w.first_thread, rank),
                thread_name(&w.second_thread, rank)
            )
        };
        d = d.label(
            h.second.span,
            format!("for example, {who} `{}`", arr.element_text(&elem)),
        );
    }
    let land = landing_code(f);
    let publish = if f.same_thread {
        String::new()
    } else {
        " sync_block_threads();".to_string()
    };
    d = match &h.fix {
        Some(p) => d.note(format!(
            "insert `{land}{publish}` before line {} (the wait lands this thread's copies; {}), or let the compiler place them: `#[kernel(sync = \"auto\")]`",
            p.before.start().line,
            if f.same_thread { "each thread reads only what it copied" } else { "the barrier then shows them to the other threads" }
        )),
        None => d.note(format!(
            "land the copy (`{land}`) and, where other threads read it, `sync_block_threads();` at a point every thread of the block reaches before this {second}"
        )),
    };
    d
}

/// An access that meets a warpgroup multiply's read of its tile still in flight: a refill of
/// a stage a `wgmma` may still be reading.
fn wgmma_in_flight_diagnostic(k: &Kernel, h: &Hazard, f: hazard::InFlight) -> Diagnostic {
    let arr = k.arrays.get(h.array);
    let name = &arr.name;
    let rank = hazard::thread_rank(k);
    let second = access_word(h.second.write, h.second.atomic);
    let headline = if h.witness.is_some() {
        format!("data race on shared array `{name}`: a {second} while a `wgmma` may still be reading it")
    } else {
        format!("cannot prove that the `wgmma` reading shared array `{name}` has finished before this {second}")
    };
    let when = if h.loop_carried {
        ", in an earlier iteration of the loop"
    } else {
        ""
    };
    let mut d = Diagnostic::new(h.second.span, headline).label(
        h.first.span,
        format!("the `wgmma` reading `{name}`{when}: it reads until a `wgmma_wait` that covers its group, and no such wait comes before the {second}"),
    );
    if let Some(w) = &h.witness {
        let elem: String = w.element.iter().map(|i| format!("[{i}]")).collect();
        d = d.label(
            h.second.span,
            format!(
                "for example, the `wgmma` of {} reads `{}`, which {} writes here",
                thread_name(&w.first_thread, rank),
                arr.element_text(&elem),
                thread_name(&w.second_thread, rank)
            ),
        );
    }
    let land = landing_code(f);
    let publish = if f.same_thread {
        String::new()
    } else {
        " sync_block_threads();".to_string()
    };
    match &h.fix {
        Some(p) => d.note(format!(
            "insert `{land}{publish}` before line {} (the wait ends this warpgroup's reads; the barrier, the other warpgroups'), or let the compiler place them: `#[kernel(sync = \"auto\")]`",
            p.before.start().line,
        )),
        None => d.note(format!(
            "end the read (`{land}`) and `sync_block_threads();` at a point every thread of the block reaches before this {second}"
        )),
    }
}
