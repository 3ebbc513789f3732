//! Warp operations need warp-uniform control flow, a level between block-uniform and
//! divergent: the reduction tail `if tid < 32 { warp_shuffle_down(..) }` is accepted (for
//! blocks whose x extent is a multiple of 32, which the launch then checks), a condition that
//! splits a warp is not.

use crate::compile_str;

/// Compiles a kernel whose body is `body`: `Ok(whole_warps)` or the first error.
fn verdict(body: &str) -> Result<bool, String> {
    let src = format!("fn k(out: &mut [u32], n: u32) {{\n    let t = thread_idx().x;\n{body}\n}}");
    compile_str("", &src, "k.rs")
        .map(|c| c.report.whole_warps)
        .map_err(|d| d[0].full_message())
}

#[test]
fn warp_uniform_conditions_admit_warp_operations() {
    for body in [
        "if t < 32 { let v = warp_shuffle_down(t, 16); if t == 0 { out[0] = v; } }",
        "if t >= 64 { let v = warp_shuffle_xor(t, 1); out[t] = v; }",
        "if t <= 31 { out[t] = warp_shuffle(t, 0); }",
        "if t / 32 == 1 { out[t] = warp_ballot(t % 2 == 0); }",
        "let warp = t >> 5; if warp < 2 { out[t] = warp_shuffle_up(t, 1); }",
        "if thread_idx().y == 0 { out[t] = warp_shuffle_down(t, 1); }",
        // A vote is the same in every lane: a loop on it stays warp-uniform.
        "let mut v = t; while warp_any(v > 0) { v = warp_shuffle_down(v, 1); } out[t] = v;",
    ] {
        assert_eq!(verdict(body), Ok(true), "{body}");
    }
}

#[test]
fn casts_that_keep_a_thread_id_keep_its_warp_uniformity() {
    // `int tid = threadIdx.x; int row = tid / 32; if (row >= n) return;` of a C port.
    for body in [
        "let tid = t as i32; let row = tid / 32; if row >= n as i32 { return; } out[t] = warp_shuffle_down(t, 1);",
        "if (thread_idx().x as i64) < 64 { out[t] = warp_shuffle_xor(t, 1); }",
        "let w = (t as u16) >> 5; if w == 0 { out[t] = warp_shuffle(t, 0); }",
    ] {
        assert_eq!(verdict(body), Ok(true), "{body}");
    }
}

#[test]
fn block_uniform_warp_operations_need_no_whole_warps() {
    for body in [
        "out[t] = warp_shuffle_down(t, 1);",
        "if n > 3 { out[t] = warp_ballot(t < n); }",
    ] {
        assert_eq!(verdict(body), Ok(false), "{body}");
    }
}

#[test]
fn conditions_that_split_a_warp_are_rejected_with_a_warp_message() {
    for body in [
        "if t < 5 { out[t] = warp_shuffle_down(t, 1); }",
        "if t < 48 { out[t] = warp_shuffle_down(t, 1); }",
        "if t % 32 == 0 { out[t] = warp_ballot(true); }",
        "let mut u = t; u += 1; if u < 32 { out[t] = warp_shuffle(t, 0); }",
        "if lane_id() < 16 { out[t] = warp_shuffle(t, 0); }",
    ] {
        let e = verdict(body).expect_err(body);
        assert!(
            e.contains("is not reached by every thread of its warp"),
            "{body}: {e}"
        );
    }
}

#[test]
fn barriers_still_need_block_uniform_control_flow() {
    let e = verdict("if t < 32 { sync_block_threads(); }").expect_err("a divergent barrier");
    assert!(
        e.contains("not reached by every thread of the block"),
        "{e}"
    );
}

#[test]
fn a_divergent_assert_before_a_barrier_is_named_as_one() {
    let e = verdict("assert!(t < n); sync_block_threads(); out[t] = 1;").expect_err("divergent");
    assert!(e.contains("a failed `assert!`"), "{e}");
    assert!(!e.contains("`return`"), "{e}");
}
