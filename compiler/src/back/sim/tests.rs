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

/// A local array whose every element is named by literal indices lives in variables: within
/// one thread loop alone, with no storage for the block; across a barrier, loaded and stored
/// back per thread. One indexed by a variable stays in the block's memory.
#[test]
fn local_arrays_with_literal_indices_are_registers() {
    let (code, futures) = sim("fn k(out: &mut [f32], xs: &[[f32; 4]]) {
            let i = global_idx().x;
            let c = xs[i];
            let mut across = [0.0f32; 2];
            across[1] = c[0] + c[3];
            let mut walk = [0.0f32; 4];
            for j in 0..4u32 {
                walk[j] = c[1] * j as f32;
            }
            sync_block_threads();
            out[i] = across[1] + walk[2];
        }");
    assert!(!futures, "{code}");
    // `c` is used before the barrier alone: variables, no block storage.
    assert!(code.contains("let mut __r_c_3 : f32 ="), "{code}");
    assert!(!code.contains("__all_c"), "{code}");
    // `across` crosses the barrier: stored back after the first loop, loaded in the second.
    assert!(code.contains("__all_across"), "{code}");
    assert!(
        code.contains("across . set (1usize , __r_across_1)"),
        "{code}"
    );
    assert!(
        code.contains("let mut __r_across_1 : f32 = across . get (1usize)"),
        "{code}"
    );
    // `walk` is indexed by `j`: memory, accessed with bounds checks.
    assert!(code.contains("__all_walk"), "{code}");
    assert!(code.contains("walk . store1"), "{code}");
    assert!(!code.contains("__r_walk"), "{code}");
}

/// In a kernel the simulator runs as one future per thread, register arrays are variables of
/// the thread's function.
#[test]
fn register_arrays_are_variables_of_a_thread_future() {
    let c = compile_str(
        "block = 64",
        "fn k(out: &mut [u32]) {
            let t = thread_idx().x;
            let mut r = [0u32; 2];
            for k in 0..4u32 {
                sync_block_threads();
                let s = warp_shuffle(t + k, 0);
                r[0] += s;
                r[1] += k;
                if k == 2 {
                    break;
                }
            }
            out[global_idx().x] = r[0] * 100 + r[1];
        }",
        "k.rs",
    )
    .unwrap();
    let thread = c.sim.thread_fn.map(|t| t.to_string()).unwrap_or_default();
    assert!(thread.contains("let mut __r_r_1 : u32"), "{thread}");
    assert!(!thread.contains("Shared :: < u32 > :: new"), "{thread}");
}

/// A thread loop loads only the register arrays it touches.
#[test]
fn thread_loops_load_only_the_register_arrays_they_touch() {
    let (code, _) = sim("fn k(out: &mut [f32], xs: &[[f32; 2]]) {
            let i = global_idx().x;
            let a = xs[i];
            let b = [a[1], a[0]];
            sync_block_threads();
            let s = b[0] * 2.0;
            sync_block_threads();
            out[i] = s + a[0];
        }");
    // Between the barriers only `b` is read: `a` is not loaded there.
    let middle = code
        .split("__run . barrier")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    assert!(
        middle.contains("__r_b_0 : f32 = b . get (0usize)"),
        "{middle}"
    );
    assert!(!middle.contains("__r_a_0"), "{middle}");
}

/// The declaration lowering puts before a warp operation's result (`let y;`) is no lane loop
/// of its own (it had one that only loaded and stored `y` back).
#[test]
fn a_declaration_alone_is_no_thread_loop() {
    let (code, futures) = sim("fn k(out: &mut [u32]) {
            let t = thread_idx().x;
            let mut s = t;
            let mut d = 1u32;
            while d < 32 {
                let y = warp_shuffle_up(s, d);
                if t % 32 >= d {
                    s += y;
                }
                d *= 2;
            }
            out[global_idx().x] = s;
        }");
    assert!(!futures, "{code}");
    assert!(code.contains("warp_at"), "{code}");
    assert!(
        !code.contains("let mut y = __s_y [__t] ; __s_y [__t] = y ;"),
        "{code}"
    );
}

/// How many thread loops of `src`'s kernel may run straight (each has one check pass).
fn straight_loops(src: &str) -> usize {
    let (code, _) = sim(src);
    code.matches("'__dry : for").count()
}

/// Element-wise and shared-memory parts run straight: plain accesses for read-only and
/// exclusive buffers, unchecked ones for the shared tile; the checked loops stay for the
/// other orders and for a check pass that finds a fault.
#[test]
fn parts_whose_accesses_the_part_cannot_move_run_straight() {
    let src = "fn reverse(out: &mut [f32], input: &[f32]) {
            let tile = shared::<[f32; 256]>();
            let t = thread_idx().x;
            let i = global_idx().x;
            if i < input.len() as u32 {
                tile[t] = input[i];
            }
            sync_block_threads();
            if i < out.len() as u32 {
                out[i] = tile[block_dim().x - 1 - t];
            }
        }";
    assert_eq!(straight_loops(src), 2);
    let (code, _) = sim(src);
    assert!(code.contains("input . load_plain"), "{code}");
    assert!(code.contains("out . store_plain"), "{code}");
    assert!(code.contains("tile . view () . set1"), "{code}");
    assert!(code.contains("out . plain ()"), "{code}");
    assert!(code.contains("tile . unshadowed ()"), "{code}");
    assert_eq!(code.matches("for __k in 0 .. __n").count(), 2, "{code}");
    // A `&mut` buffer that is not one element per thread is accessed atomically.
    let (code, _) = sim("fn k(out: &mut [f32], input: &[f32]) {
            let i = global_idx().x as usize;
            if i + 1 < out.len() {
                out[i + 1] = input[i];
            }
        }");
    assert!(code.contains("out . store_unchecked"), "{code}");
    assert!(!code.contains("out . plain ()"), "{code}");
}

/// Slices of arrays run straight, field by field; between warp operations, a warp's lanes run
/// straight as a block's threads do; the loops that move values into and out of a warp
/// operation are plain loops over the lanes when the values come from locals alone.
#[test]
fn fields_and_warp_lanes_run_straight() {
    let src = "fn k(out: &mut [[u32; 4]], input: &[[u32; 4]], idx: &[u32]) {
            let i = global_idx().x;
            let v = input[i];
            let mut s = v[0] + idx[i];
            let y = warp_shuffle_xor(s, 1);
            s += y;
            out[i] = [s, v[1], v[2], v[3]];
        }";
    let (code, _) = sim(src);
    // The lanes before the shuffle and after it, each with a check pass.
    assert_eq!(
        code.matches("'__dry : for __t in 32 * __w .. 32 * __w + __run . lanes (__w)")
            .count(),
        2,
        "{code}"
    );
    assert!(code.contains("input__0 . load_plain"), "{code}");
    assert!(code.contains("out__3 . store_unchecked"), "{code}");
    assert!(code.contains("out__0 . unshadowed ()"), "{code}");
    // Gathering `s` and handing out `y`: no thread made the running one, no checked loop.
    assert_eq!(code.matches("__p . ctx (__t)").count(), 6, "{code}");
    // The checked loops stay for the other orders.
    assert_eq!(
        code.matches("__p . lane_at (__w , __k)").count(),
        2,
        "{code}"
    );
    // An operand that loads is gathered in a checked loop over the lanes (the load may fault,
    // and is recorded as the lane's): the only loop of the three the lanes run (besides the
    // checked twins of the two straight ones) that makes each lane the running thread.
    let (code, _) = sim("fn k(out: &mut [u32], idx: &[u32]) {
            let t = thread_idx().x;
            out[t] = warp_shuffle_xor(idx[t], 1);
        }");
    assert_eq!(code.matches("idx . load (").count(), 1, "{code}");
    assert!(!code.contains("idx . load_plain"), "{code}");
    assert_eq!(
        code.matches("__p . lane_at (__w , __k)").count(),
        3,
        "{code}"
    );
    assert_eq!(
        code.matches("'__dry : for __t in 32 * __w").count(),
        2,
        "{code}"
    );
}

/// A part runs checked only where a value that may change between the check pass and the
/// real one (loaded from an array the part writes, or from any `&mut` buffer) decides an
/// access, a branch, a loop bound or a divisor, directly or through variables.
#[test]
fn parts_whose_accesses_depend_on_values_that_may_change_run_checked() {
    let refused = [
        // An index loaded from a shared array the part writes.
        "let tile = shared::<[u32; 64]>(); let t = thread_idx().x;
         tile[t] = idx[t]; let j = tile[t]; out[t] = data[j];",
        // An index loaded from a `&mut` buffer (another block may write it meanwhile).
        "let t = thread_idx().x; let j = out[t]; out[t] = data[j];",
        // A branch on such a value.
        "let tile = shared::<[u32; 64]>(); let t = thread_idx().x;
         tile[t] = idx[t]; if tile[t] > 3 { out[t] = data[9]; }",
        // A select on such a value, with an access in a branch.
        "let tile = shared::<[u32; 64]>(); let t = thread_idx().x;
         tile[t] = idx[t]; out[t] = if tile[t] > 3 { data[9] } else { 0 };",
        // The left side of `&&` on such a value, with an access on the right.
        "let tile = shared::<[u32; 64]>(); let t = thread_idx().x;
         tile[t] = idx[t]; out[t] = if tile[t] > 3 && data[9] > 2 { 1 } else { 0 };",
        // An integer division of such a value, compound too.
        "let t = thread_idx().x; let mut q = idx[t]; q /= out[t]; out[t] = q;",
        // A loop bound.
        "let t = thread_idx().x; let n = out[t]; for k in 0..n { out[t] += k; }",
        // A divisor.
        "let t = thread_idx().x; let d = out[t]; out[t] = idx[t] / d;",
        // Through a variable carried around a loop: tainted from the second round on.
        "let tile = shared::<[u32; 64]>(); let t = thread_idx().x; let mut j = 0u32;
         for k in 0..4u32 { out[j] = k; tile[t] = k; j = tile[t]; }",
        // An atomic.
        "let t = thread_idx().x; out.atomic_add(t, 1);",
    ];
    for body in refused {
        let src = format!("fn k(out: &mut [u32], idx: &[u32], data: &[u32]) {{ {body} }}");
        assert_eq!(straight_loops(&src), 0, "{body}");
    }
    let accepted = [
        // Values of the part's own writes that only flow into stored values.
        "let tile = shared::<[u32; 64]>(); let t = thread_idx().x;
         tile[t] = idx[t]; out[t] = tile[t] * 2 + out[t];",
        // Indices, branches and divisors from read-only buffers.
        "let t = thread_idx().x; let j = idx[t]; if data[j] > 3 { out[t] = data[j] / idx[0]; }",
        // A float division of a changing value cannot fault.
        "let t = thread_idx().x; let v = out[t] as f32; out[t] = (v / 3.5) as u32;",
        // A select on a changing value with no access in its branches.
        "let t = thread_idx().x; let v = out[t]; out[t] = if v > 3 { v } else { 7 };",
    ];
    for body in accepted {
        let src = format!("fn k(out: &mut [u32], idx: &[u32], data: &[u32]) {{ {body} }}");
        assert_eq!(straight_loops(&src), 1, "{body}");
    }
}

/// How many straight loops of `src`'s kernel carry a range proof that can skip their check
/// pass.
fn proved_loops(src: &str) -> usize {
    let (code, _) = sim(src);
    straight_loops(src) - code.matches("(false) || {").count()
}

/// Affine indices of the thread's indices and of counted loops get a range proof; a
/// division, a `while`, a loaded index or a value kept per thread leaves the check pass.
#[test]
fn affine_indices_get_range_proofs_and_others_keep_the_check_pass() {
    let tiled = "fn mm(c: &mut [f32], a: &[f32], b: &[f32], n: u32) {
            let ta = shared::<[[f32; 16]; 16]>();
            let tx = thread_idx().x;
            let ty = thread_idx().y;
            let row = block_idx().y * 16 + ty;
            let col = block_idx().x * 16 + tx;
            let mut acc = 0.0f32;
            for t in 0..n / 16 {
                ta[ty][tx] = a[(row * n + t * 16 + tx) as usize];
                sync_block_threads();
                for k in 0..16u32 {
                    acc += ta[ty][k] * b[((t * 16 + k) * n + col) as usize];
                }
                sync_block_threads();
            }
            c[(row * n + col) as usize] = acc;
        }";
    // The start (no access), the tile's load, the products, the store.
    assert_eq!(straight_loops(tiled), 4);
    assert_eq!(proved_loops(tiled), 4);
    for (body, proved) in [
        ("let t = thread_idx().x; out[t] = idx[t / 2];", 0),
        (
            "let t = thread_idx().x; let j = idx[t]; out[t] = data[j];",
            0,
        ),
        (
            "let t = thread_idx().x; let mut k = 0u32; while k < 4 { out[t] += k; k += 1; }",
            0,
        ),
        (
            "let t = thread_idx().x; out[(t * 3 + 1) as usize] = idx[(t as u8) as usize];",
            1,
        ),
    ] {
        let src = format!("fn k(out: &mut [u32], idx: &[u32], data: &[u32]) {{ {body} }}");
        assert_eq!(straight_loops(&src), 1, "{body}");
        assert_eq!(proved_loops(&src), proved, "{body}");
    }
}

/// Comparisons of affine values (`if i < n`, conjunctions of them) get a proof that lets the
/// straight pass skip the test where it holds for every thread; others keep it.
#[test]
fn affine_guards_get_proofs_others_keep_their_test() {
    let (code, _) = sim("fn k(out: &mut [f32], input: &[f32], n: u32) {
            let i = global_idx().x;
            if i < n && i + 1 <= input.len() as u32 {
                out[i] = input[i];
            }
        }");
    assert!(code.contains("let __g0 : bool"), "{code}");
    assert!(code.contains("if __g0 ||"), "{code}");
    // Only the straight pass skips it: the check pass and the checked loop test it.
    assert_eq!(code.matches("__g0 ||").count(), 1, "{code}");
    // An `if` as a value too.
    let (code, _) = sim("fn k(out: &mut [f32], input: &[f32]) {
            let i = global_idx().x;
            out[i] = if i < input.len() as u32 { input[i] } else { 0.0 };
        }");
    assert!(code.contains("(if __g0 ||"), "{code}");
    let (code, _) = sim("fn k(out: &mut [f32], input: &[f32], n: u32) {
            let i = global_idx().x;
            if i / 2 < n {
                out[i] = input[i];
            }
        }");
    assert!(!code.contains("__g0"), "{code}");
}
