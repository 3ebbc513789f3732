//! The simulator writer's plan: which kernels are phase-split, and where their values live.

use crate::compile_str;

/// The block function's code and whether the kernel kept one future per thread.
fn sim(src: &str) -> (String, bool) {
    let c = compile_str("", src, "k.rs").unwrap();
    (c.sim.block_fn.to_string(), c.sim.thread_fn.is_some())
}

/// A tree reduction is split at its barriers: the stride is one value for the block (its
/// writes run once), the thread index is recomputed in each thread loop, and nothing is kept
/// per thread.
#[test]
fn a_block_reduction_keeps_nothing_per_thread() {
    let (code, futures) = sim("fn reduce(partial: &mut [f32], input: &[f32]) {
            let buf = shared::<[f32; 256]>();
            let t = thread_idx().x;
            let i = global_idx().x;
            buf[t] = if i < input.len() as u32 { input[i] } else { 0.0 };
            sync_block_threads();
            let mut s = block_dim().x / 2;
            while s > 0 {
                if t < s {
                    buf[t] += buf[t + s];
                }
                sync_block_threads();
                s /= 2;
            }
            if t == 0 {
                partial[block_idx().x] = buf[0];
            }
        }");
    assert!(!futures, "{code}");
    assert!(code.contains(":: Run :: new"), "{code}");
    assert!(code.contains("let mut s : u32 ="), "{code}");
    assert!(!code.contains(":: std :: vec :: Vec < u32 >"), "{code}");
    assert!(!code.contains("[__t]"), "{code}");
    // The loop's condition is the block's: computed once, not voted on.
    assert!(!code.contains("Agree"), "{code}");
    // Each round's loop and the last one run the threads the guard admits.
    assert_eq!(code.matches("x_range (0 , __u)").count(), 1, "{code}");
    assert_eq!(code.matches("x_range (__u , __u + 1)").count(), 1, "{code}");
}

/// A value assigned between barriers and read after one is kept per thread; a `break` out of
/// the loop that syncs is resolved by the block.
#[test]
fn values_across_barriers_are_kept_per_thread_and_breaks_resolved() {
    let (code, futures) = sim("fn k(out: &mut [u32], rounds: u32) {
            let tile = shared::<[u32; 64]>();
            let t = thread_idx().x;
            let mut round = 0u32;
            loop {
                tile[t] = round + t;
                sync_block_threads();
                let next = tile[(t + 1) % 64];
                sync_block_threads();
                out[(round * 64 + t) as usize] = next;
                round += 1;
                if round >= rounds { break; }
            }
        }");
    assert!(!futures, "{code}");
    assert!(
        code.contains("let mut __s_round : :: std :: vec :: Vec < u32 >"),
        "{code}"
    );
    // Loaded where a thread's part starts, stored back where it ends.
    assert!(
        code.contains("let mut round = __s_round [__t] ;")
            && code.contains("__s_round [__t] = round ;"),
        "{code}"
    );
    assert!(
        code.contains("__run . resolve () ?") && code.contains("break '__b0"),
        "{code}"
    );
}

/// A condition that holds a promise is voted on by every thread, so the promise is checked.
#[test]
fn promised_conditions_are_voted_on() {
    let (code, futures) = sim("fn k(out: &mut [u32]) {
            let t = thread_idx().x;
            if unsafe { assume_uniform(t < 16) } {
                sync_block_threads();
            }
            out[t as usize] = t;
        }");
    assert!(!futures, "{code}");
    assert!(code.contains("Agree :: new"), "{code}");
}

/// Warp operations between barriers run per warp; a loop exit from such code to a loop that
/// syncs keeps the kernel on one future per thread.
#[test]
fn warp_regions_run_per_warp_unless_a_loop_exit_leaves_them() {
    let (code, futures) = sim("fn k(out: &mut [u32]) {
            let t = thread_idx().x;
            let mut v = t;
            let mut d = 16u32;
            while d > 0 {
                v += warp_shuffle_down(v, d);
                d /= 2;
            }
            sync_block_threads();
            out[t as usize] = v;
        }");
    assert!(!futures, "{code}");
    assert!(
        code.contains("'__warps : for __wk") && code.contains(":: exchange ("),
        "{code}"
    );
    let (code, futures) = sim("fn k(out: &mut [u32], n: u32) {
            let t = thread_idx().x;
            let mut v = t;
            let mut r = 0u32;
            loop {
                v = warp_shuffle_xor(v, 1);
                r += 1;
                if r >= n { break; }
                sync_block_threads();
            }
            out[t as usize] = v;
        }");
    assert!(futures, "{code}");
}
