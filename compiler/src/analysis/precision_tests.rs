//! Index forms the race proof decides exactly: constant arithmetic folds, and division,
//! remainder, shifts and low-bit masks of unsigned values by constants are a quotient and a
//! remainder (`x == c*q + r`, `0 <= r < c`), so `t % 32 + 32 * (t / 32)` is `t` and `t / 2`
//! is shared by two threads.

use crate::compile_str;

fn verdict(body: &str) -> Result<(), Vec<String>> {
    let src = format!(
        "fn k(out: &mut [f32]) {{\n    let tile = shared::<[f32; 1024]>();\n    let t = thread_idx().x;\n{body}\n    sync_block_threads();\n    out[t] = tile[t];\n}}"
    );
    compile_str("", &src, "k.rs")
        .map(|_| ())
        .map_err(|d| d.iter().map(|d| d.full_message()).collect())
}

#[test]
fn constant_indices_fold() {
    // Thread 0 writes `tile[512]`, the first 512 threads `tile[0..512]`: disjoint.
    assert_eq!(
        verdict("if t == 0 { tile[1024 / 2] = 1.0; }\n if t < 512 { tile[t] = 2.0; }"),
        Ok(())
    );
    assert_eq!(
        verdict("if t == 0 { tile[(1 << 9) | 1] = 1.0; }\n if t < 512 { tile[t] = 2.0; }"),
        Ok(())
    );
    // And a real collision is reported at the folded element.
    let e = verdict("if t == 0 { tile[1024 / 4] = 1.0; }\n if t < 512 { tile[t] = 2.0; }")
        .expect_err("thread 256 writes tile[256] too");
    assert!(e.iter().any(|m| m.contains("`tile[256]`")), "{e:?}");
}

#[test]
fn quotients_and_remainders_are_exact() {
    for body in [
        "if t < 1024 { tile[t % 32 + 32 * (t / 32)] = 1.0; }",
        "if t < 1024 { tile[(t & 31) + ((t >> 5) << 5)] = 1.0; }",
        "if t < 512 { tile[2 * (t / 2) + t % 2] = 1.0; }",
    ] {
        assert_eq!(verdict(body), Ok(()), "{body}");
    }
}

/// `t / 8` and `t % 8` written apart are one division's quotient and remainder, and the
/// integer reasoning that separates the threads of an index built from them and a loop
/// counter (`128 q + 32 e + r`, the copies of a GEMM whose lanes run along a row) holds; the
/// same form with room for collisions is still a race, with a real pair.
#[test]
fn quotient_and_remainder_written_apart_are_one_division() {
    for body in [
        "if t < 32 { for e in 0..4u32 { tile[(t / 8) * 32 + e * 8 + t % 8] = 1.0; } }",
        "if t < 32 { for e in 0..4u32 { tile[(t / 8) * 128 + e * 32 + t % 8] = 1.0; } }",
    ] {
        assert_eq!(verdict(body), Ok(()), "{body}");
    }
    // `e` in 0..8: `(q, e) = (0, 4)` and `(1, 0)` are one element (rejected; the witness
    // search, which tries small values one thread and iteration at a time, finds no pair).
    let e = verdict("if t < 32 { for e in 0..8u32 { tile[(t / 8) * 32 + e * 8 + t % 8] = 1.0; } }")
        .expect_err("threads 0 and 8 write tile[32]");
    assert!(e.iter().any(|m| m.contains("`tile`")), "{e:?}");
    // A remainder by another divisor is another symbol: `t % 4` does not complete `t / 8`.
    let e = verdict("if t < 32 { tile[(t / 8) * 8 + t % 4] = 1.0; }")
        .expect_err("threads 0 and 4 write tile[0]");
    assert!(e.iter().any(|m| m.contains("`tile`")), "{e:?}");
}

/// A short loop's counter takes each of its values in turn before a pair is called a hazard:
/// over the rationals, `e1 - e0` in `-1..=1` merges the iterations and nothing rounds, so
/// `4 (t % 16) + t / 16 + 512 e` (64 threads: 0..64 a row, 512 apart) was "cannot prove".
#[test]
fn a_short_loops_iterations_are_told_apart() {
    for body in [
        "if t < 64 { for e in 0..2u32 { tile[(t % 16) * 4 + t / 16 + 512 * e] = 1.0; } }",
        "if t < 64 { for e in 0..2u32 { tile[(t % 16) * 4 + t / 16 + 64 * e] = 1.0; } }",
        "if t < 64 { for e in 1..=3u32 { tile[(t % 16) * 4 + t / 16 + 128 * e] = 1.0; } }",
        "if t < 64 { for e in (0..8u32).step_by(4) { tile[(t % 16) * 4 + t / 16 + 64 * e] = 1.0; } }",
    ] {
        assert_eq!(verdict(body), Ok(()), "{body}");
    }
    // Rows 32 apart overlap: threads 8 (row element 32, e = 0) and 0 (e = 1) meet at 32.
    let e =
        verdict("if t < 64 { for e in 0..2u32 { tile[(t % 16) * 4 + t / 16 + 32 * e] = 1.0; } }")
            .expect_err("a real collision");
    assert!(
        e.iter()
            .any(|m| m.contains("data race on shared array `tile`")),
        "{e:?}"
    );
}

#[test]
fn a_shared_quotient_is_a_race_with_a_real_pair() {
    let e = verdict("if t < 512 { tile[t / 2] = 1.0; }").expect_err("threads 2i and 2i+1 collide");
    let m = e
        .iter()
        .find(|m| m.contains("for example"))
        .unwrap_or_else(|| panic!("no pair shown: {e:?}"));
    // "thread (a) does the write and thread (b) the write of `tile[i]`": a / 2 == b / 2 == i.
    let nums: Vec<i128> = m[m.find("for example").unwrap_or(0)..]
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|s| s.parse().ok())
        .collect();
    // blocks of N threads, thread a, thread b, element i
    let (a, b, i) = (nums[1], nums[2], nums[3]);
    assert!(a != b && a / 2 == i && b / 2 == i, "{m}");
}

#[test]
fn products_with_a_power_of_two_factor_are_decided() {
    // Blelloch's up-sweep index: `offset` doubles, so the product is not affine, but once
    // `offset` is fixed it is. The writes of different iterations are disjoint (2t, 4t + 1,
    // 8t + 3, ...): enumerating the factor's values proves it.
    assert_eq!(
        verdict(
            "let mut offset = 1u32;\n while offset < 512 {\n if t < 512 / offset { tile[offset * (2 * t + 1) - 1] = 1.0; }\n offset *= 2;\n }",
        ),
        Ok(())
    );
    // The interleaved tree reduction (CUDA samples' reduce0): `t % (2 * s) == 0`.
    assert_eq!(
        verdict(
            "let mut s = 1u32;\n while s < 1024 {\n if t % (2 * s) == 0 && t + s < 1024 { tile[t] += tile[t + s]; }\n sync_block_threads();\n s *= 2;\n }",
        ),
        Ok(())
    );
    // A real collision through a product: `offset * t` for two threads and two offsets.
    let e = verdict(
        "let mut offset = 1u32;\n while offset < 512 {\n if t < 512 / offset { tile[offset * t] = 1.0; }\n offset *= 2;\n }",
    )
    .expect_err("thread 2 in one round and thread 1 in the next write one element");
    assert!(e.iter().any(|m| m.contains("data race")), "{e:?}");
    // A factor that is not a power of two is not enumerated: undecided, not a race.
    let e = verdict(
        "let mut s = 3u32;\n while s < 512 {\n if t < 512 / s { tile[s * t] = 1.0; }\n s += 3;\n }",
    )
    .expect_err("the proof cannot decide it");
    assert!(!e.iter().any(|m| m.contains("data race")), "{e:?}");
}

#[test]
fn an_index_the_proof_cannot_model_is_undecided_not_a_race() {
    // `t * t` is distinct for distinct threads, which the linear proof cannot show: it says
    // so, and names the term, instead of claiming a race.
    let e = verdict("if t < 32 { tile[t * t] = 1.0; }").expect_err("the proof cannot decide it");
    assert!(
        e.iter()
            .all(|m| m.contains("cannot prove that two threads never meet on shared array `tile`")),
        "{e:?}"
    );
    assert!(!e.iter().any(|m| m.contains("data race")), "{e:?}");
    assert!(
        e.iter()
            .any(|m| m.contains("the proof cannot model this value")),
        "{e:?}"
    );
    assert!(e.iter().any(|m| m.contains("`unsafe { }`")), "{e:?}");
}

#[test]
fn a_lane_is_the_thread_index_modulo_32_in_one_dimensional_blocks() {
    // The warp-shuffle reduction's tail: lane 0 of each warp writes its warp's sum.
    let src = "fn k(out: &mut [u32]) {
        let i = global_idx().x;
        if lane_id() == 0 && i / 32 < out.len() as u32 {
            out[i / 32] = i;
        }
    }";
    assert!(compile_str("", src, "k.rs").is_ok());
    // Two lanes of a warp writing its element do race, with a real pair.
    let src = "fn k(out: &mut [u32]) {
        let i = global_idx().x;
        if lane_id() < 2 && i / 32 < out.len() as u32 {
            out[i / 32] = i;
        }
    }";
    let e = match compile_str("", src, "k.rs") {
        Ok(_) => panic!("lanes 0 and 1 write one element"),
        Err(d) => d[0].full_message(),
    };
    assert!(e.contains("data race on `out` (global memory)"), "{e}");
}

#[test]
fn a_variable_that_doubles_below_a_bound_is_never_zero() {
    // The CUDA samples' reduce1: `2 * s * tid` with `s` doubling while `s < block_dim().x`.
    // `s` never wraps around to zero, so thread 0 is the only one at `tile[0]`.
    let body = "let mut s = 1u32;\n while s < block_dim().x {\n let index = 2 * s * t;\n if index < block_dim().x { tile[index] += tile[index + s]; }\n sync_block_threads();\n s *= 2;\n }";
    assert_eq!(verdict(body), Ok(()));
    // Below a bound of the data it can wrap (`s = 2^31` doubles to 0 while `s < n` still
    // holds for a large `n`): then every thread meets at `tile[0]`.
    let unbounded = "let mut s = 1u32;\n while s < out.len() as u32 {\n let index = 2 * s * t;\n if index < 512 { tile[index] += tile[index + s]; }\n sync_block_threads();\n s *= 2;\n }";
    let e = verdict(unbounded).expect_err("s can wrap around to zero");
    assert!(e.iter().any(|m| m.contains("`tile[0]`")), "{e:?}");
}

#[test]
fn a_length_asserted_to_be_a_power_of_two_decides_the_bitonic_merge() {
    // sortingNetworks' final merge: `stride` halves from `n / 2`; `2t - (t & (stride - 1))`
    // pairs distinct elements only where `n` is a power of two (for n = 6, threads 1 and 2
    // both take element 2), which the host asserts in the original and the kernel here.
    let merge = "let mut stride = n / 2;\n while stride > 0 {\n sync_block_threads();\n let pos = 2 * t - (t & (stride - 1));\n if t < 256 {\n let a = tile[pos];\n let b = tile[pos + stride];\n if a > b { tile[pos] = b; tile[pos + stride] = a; }\n }\n stride >>= 1;\n }";
    let with =
        format!("let n = out.len() as u32;\n assert!(n.is_power_of_two() && n <= 512);\n{merge}");
    assert_eq!(verdict(&with), Ok(()));
    let without = format!("let n = out.len() as u32;\n assert!(n <= 512);\n{merge}");
    let e = verdict(&without).expect_err("a length that is not a power of two races");
    assert!(!e.is_empty());
}

#[test]
fn a_product_with_a_parameter_shows_a_real_pair_or_none() {
    // A shared tile indexed `tx + ty * w`: with `w = 1` threads (1, 0) and (0, 1) write one
    // element, a real execution the witness search finds by fixing `w`.
    let src = "fn k(out: &mut [f32], w: u32) {
        let tile = shared::<[f32; 1024]>();
        let (tx, ty) = (thread_idx().x, thread_idx().y);
        tile[tx + ty * w] = 1.0;
        sync_block_threads();
        out[0] = tile[0];
    }";
    let e = compile_str("block = (16, 16)", src, "k.rs")
        .map(|_| ())
        .expect_err("w = 1 collides");
    let m = e[0].full_message();
    assert!(m.contains("data race on shared array `tile`"), "{m}");
    assert!(m.contains("for example"), "{m}");
    // Rodinia's write-back `out[tx + ty * cols]` races only for small `cols`: global memory
    // whose race needs a parameter's value is left to the simulator, like a data-dependent
    // index.
    let global = "fn k(out: &mut [f32], cols: u32) {
        let (tx, ty) = (thread_idx().x, thread_idx().y);
        out[tx + ty * cols] = 1.0;
    }";
    assert!(compile_str("block = (16, 16)", global, "k.rs").is_ok());
}

#[test]
fn a_uniform_early_return_does_not_leave_its_accesses_pending_past_a_barrier() {
    // Threads that return together (a uniform condition) never meet the accesses after the
    // barrier; those that do not return pass the barrier.
    for exit in ["if out.len() == 0 { return; }", "assert!(out.len() > 4);"] {
        let body =
            format!("tile[t] = 1.0;\n {exit}\n sync_block_threads();\n out[t] = tile[1023 - t];");
        assert_eq!(verdict(&body), Ok(()), "{exit}");
    }
    // After a thread-dependent return the barrier itself is divergent: still an error.
    assert!(verdict(
        "tile[t] = 1.0;\n if t == 0 { return; }\n sync_block_threads();\n out[t] = tile[1023 - t];"
    )
    .is_err());
}

#[test]
fn a_race_within_one_statement_says_to_split_it() {
    // No branch here: the advice is to split the statement around a barrier.
    let e =
        verdict("tile[t] = tile[(t + 1) % 1024];").expect_err("thread t + 1 writes what t reads");
    assert!(
        e.iter()
            .any(|m| m.contains("both accesses are in one statement")),
        "{e:?}"
    );
    assert!(
        !e.iter().any(|m| m.contains("divergent control flow")),
        "{e:?}"
    );
}

#[test]
fn a_truncating_cast_is_not_the_identity() {
    // Threads 0 and 256 both write `tile[0]`: `t as u8` wraps.
    let e = verdict("if t < 1024 { tile[(t as u8) as u32] = 1.0; }")
        .expect_err("t as u8 maps 256 to 0");
    assert!(e.iter().any(|m| m.contains("tile")), "{e:?}");
    // A cast that keeps every value (a thread id as `i32`, a `u32` as `u64`) stays exact.
    assert_eq!(
        verdict("let i = t as i32; if i < 512 { tile[(2 * i + 1) as u32] = 1.0; }"),
        Ok(())
    );
    assert_eq!(verdict("tile[(t as u64) as u32] = 1.0;"), Ok(()));
}

#[test]
fn signed_values_that_cannot_be_negative_divide_like_unsigned_ones() {
    // Rodinia backprop's tree in C's `int`s: `ty % power_two` with a doubling `power_two`.
    let src = "fn k(out: &mut [f32]) {
    let m = shared::<[f32; 16]>();
    let t = thread_idx().x as i32;
    m[t as u32] = 1.0;
    sync_block_threads();
    let mut p = 2i32;
    while p <= 16 {
        if t % p == 0 {
            m[t as u32] = m[t as u32] + m[(t + p / 2) as u32];
        }
        sync_block_threads();
        p *= 2;
    }
    if t == 0 {
        out[0] = m[0];
    }
}";
    let r = compile_str("", src, "k.rs").map(|_| ());
    assert!(
        r.is_ok(),
        "{:?}",
        r.map_err(|d| d.iter().map(|d| d.full_message()).collect::<Vec<_>>())
    );
    // A divisor that may be negative is not a remainder the proof knows.
    let neg = src
        .replace("let mut p = 2i32;", "let mut p = -2i32;")
        .replace("p <= 16", "p >= -16");
    assert!(compile_str("", &neg, "k.rs").is_err());
}
