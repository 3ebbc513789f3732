//! `sync = "auto"` removes a barrier only when it orders nothing at all: not shared memory
//! outside `unsafe`, not shared memory inside `unsafe`, not global memory, not atomics. Each
//! case is compiled in both modes: auto mode keeps the barrier (or removes it where it provably
//! orders nothing), and check mode's report says what it orders.

use crate::compile_str;

/// The number of barriers in the CUDA C of `body` compiled with `attr`, and the report.
fn compile(attr: &str, signature: &str, body: &str) -> (usize, String) {
    let src = format!("{signature} {{\n{body}\n}}");
    match compile_str(attr, &src, "k.rs") {
        Ok(c) => (c.cuda.matches("__syncthreads();").count(), c.report.text),
        Err(d) => {
            let e: Vec<String> = d.iter().map(|d| d.full_message()).collect();
            (usize::MAX, e.join("\n"))
        }
    }
}

/// Asserts the barrier is kept in auto mode and reported as ordering `what` in check mode.
fn kept(case: &str, signature: &str, body: &str, what: &str) {
    let (auto, report) = compile("sync = \"auto\"", signature, body);
    assert_eq!(auto, 1, "{case}: auto mode must keep the barrier\n{report}");
    let (check, report) = compile("", signature, body);
    assert_eq!(
        check, 1,
        "{case}: check mode keeps written barriers\n{report}"
    );
    assert!(
        report.contains(&format!("orders {what}")),
        "{case}: the report should say the barrier orders {what}\n{report}"
    );
    assert!(!report.contains("removes it"), "{case}\n{report}");
}

#[test]
fn a_barrier_ordering_unsafe_shared_accesses_is_kept() {
    kept(
        "unsafe sweep (Blelloch scan's shape)",
        "fn k(out: &mut [f32], input: &[f32])",
        "let tile = shared::<[f32; 64]>();
         let t = thread_idx().x;
         unsafe { tile[t] = input[t]; }
         sync_block_threads();
         let v = unsafe { tile[63 - t] };
         out[t] = v;",
        "read-after-write on `tile`",
    );
}

#[test]
fn a_barrier_ordering_global_memory_between_threads_is_kept() {
    kept(
        "global reverse within a block",
        "fn k(out: &mut [f32], tmp: &mut [f32])",
        "let t = thread_idx().x;
         let bd = block_dim().x;
         let base = block_idx().x * bd;
         tmp[base + t] = t as f32;
         sync_block_threads();
         out[base + t] = tmp[base + bd - 1 - t];",
        "read-after-write on `tmp`",
    );
}

#[test]
fn a_barrier_ordering_atomics_before_a_plain_read_is_kept() {
    kept(
        "global counter, then thread 0 reads it",
        "fn k(out: &mut [u32], counter: &mut [u32])",
        "let b = block_idx().x;
         counter.atomic_add(b, 1);
         sync_block_threads();
         if thread_idx().x == 0 {
             out[b] = counter[b];
         }",
        "read-after-write on `counter`",
    );
}

#[test]
fn a_barrier_ordering_a_scatter_the_proof_cannot_decide_is_kept() {
    // `out[idx[t]]` may be any element: the barrier might order it, so it stays; check mode
    // does not reject the kernel for it (the simulator checks the scatter at run time).
    kept(
        "scatter through loaded indices",
        "fn k(out: &mut [f32], idx: &[u32])",
        "let t = thread_idx().x;
         out[idx[t]] = 1.0;
         sync_block_threads();
         out[t] = out[t] + 1.0;",
        "",
    );
}

#[test]
fn a_barrier_between_per_thread_global_accesses_is_removed() {
    // Each thread touches only its own element: the barrier orders nothing.
    let sig = "fn k(out: &mut [f32])";
    let body = "let i = global_idx().x;
         out[i] = 1.0;
         sync_block_threads();
         out[i] = out[i] + 1.0;";
    let (auto, report) = compile("sync = \"auto\"", sig, body);
    assert_eq!(auto, 0, "{report}");
    assert!(
        report.contains("orders no shared-memory access: removed"),
        "{report}"
    );
    let (check, report) = compile("", sig, body);
    assert_eq!(check, 1, "{report}");
    assert!(
        report.contains("kept; `sync = \"auto\"` removes it"),
        "{report}"
    );
}

#[test]
fn a_race_no_barrier_can_fix_does_not_keep_a_barrier() {
    // Every thread writes `out[0]` in one phase whatever the barrier does (inside `unsafe`:
    // outside, it is a race either mode rejects): that pair is not the barrier's, so the
    // barrier (which orders nothing else) is removed in auto mode.
    let (auto, report) = compile(
        "sync = \"auto\"",
        "fn k(out: &mut [f32])",
        "sync_block_threads();
         unsafe { out[0] = 1.0; }",
    );
    assert_eq!(auto, 0, "{report}");
}

#[test]
fn global_races_with_a_pair_of_threads_are_errors_in_both_modes() {
    for (body, needle) in [
        ("out[0] = 1.0;", "thread 0 the write of `out[0]`"),
        ("out[thread_idx().x / 2] = 1.0;", "the write of `out["),
    ] {
        for attr in ["", "sync = \"auto\""] {
            let (n, msg) = compile(attr, "fn k(out: &mut [f32])", body);
            assert_eq!(n, usize::MAX, "{attr} {body}: {msg}");
            if attr.is_empty() {
                assert!(msg.contains("data race on `out` (global memory)"), "{msg}");
                assert!(msg.contains(needle), "{msg}");
            } else {
                assert!(
                    msg.contains("cannot place a barrier for this write-after-write on `out`"),
                    "{msg}"
                );
            }
        }
    }
    // A scatter the proof cannot decide is left to the simulator.
    let (n, msg) = compile(
        "",
        "fn k(out: &mut [f32], idx: &[u32])",
        "out[idx[thread_idx().x]] = 1.0;",
    );
    assert_eq!(n, 0, "{msg}");
    // A global race a barrier fixes gets one in auto mode.
    let (n, msg) = compile(
        "sync = \"auto\"",
        "fn k(out: &mut [f32], tmp: &mut [f32])",
        "let t = thread_idx().x;
         let base = block_idx().x * block_dim().x;
         tmp[base + t] = 1.0;
         out[base + t] = tmp[base + block_dim().x - 1 - t];",
    );
    assert_eq!(n, 1, "{msg}");
}
