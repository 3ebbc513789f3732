//! Induction variables (`v += step` once per iteration, a loop-invariant step): at the loop's
//! head `v0 + n * step` of the iteration number `n`, so a running offset is as precise as
//! the counter times the step (PENDING.md F4, Rodinia lud's write-back).

use crate::compile_str;

fn errors(options: &str, src: &str) -> Result<(), Vec<String>> {
    compile_str(options, src, "k.rs")
        .map(|_| ())
        .map_err(|d| d.iter().map(|d| d.full_message()).collect())
}

/// A 64-thread kernel over a shared array of 256 with `body` between the declarations and a
/// barrier.
fn shared(body: &str) -> Result<(), Vec<String>> {
    let src = format!(
        "fn k(out: &mut [f32], flag: u32) {{\n    let s = shared::<[f32; 256]>();\n    let t = thread_idx().x;\n{body}\n    sync_block_threads();\n    out[t] = s[t] + flag as f32;\n}}"
    );
    errors("block = 64", &src)
}

/// The numbers in a message after "for example": block extents, the two threads, the element.
fn example_numbers(m: &str) -> Vec<i128> {
    m[m.find("for example").unwrap_or(0)..]
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|s| s.parse().ok())
        .collect()
}

#[test]
fn a_running_global_offset_is_the_counter_times_the_pitch() {
    // PENDING.md F4's reproducer: rows `cols >= 16` apart, 16 threads per row.
    let src = "fn running_offset(out: &mut [f32], cols: u32) {
    assert!(cols >= 16);
    let tx = thread_idx().x;
    let mut offset = 0u32;
    for _i in 0..16u32 {
        out[offset + tx] = 1.0;
        offset += cols;
    }
}";
    assert_eq!(errors("block = 16", src), Ok(()));
    // Also as `offset = offset + cols` and `offset = cols + offset`, and from a start of its own.
    for update in ["offset = offset + cols;", "offset = cols + offset;"] {
        let src = src.replace("offset += cols;", update);
        assert_eq!(errors("block = 16", &src), Ok(()), "{update}");
    }
    let from = src.replace("let mut offset = 0u32;", "let mut offset = 3 * cols + 1;");
    assert_eq!(errors("block = 16", &from), Ok(()));
}

#[test]
fn a_running_global_offset_with_a_known_step_is_decided_at_compile_time() {
    // A constant pitch shorter than a row: thread `tx + 8` of one row and `tx` of the next
    // write one element, a race the proof shows with a real pair (before, the offset of the
    // previous iteration was a value of its own and the pair was left to the simulator).
    let src = |pitch: &str| {
        format!(
            "fn k(out: &mut [f32], cols: u32) {{
    let tx = thread_idx().x;
    let mut offset = 0u32;
    for _i in 0..16u32 {{
        out[offset + tx] = 1.0;
        offset += {pitch};
    }}
}}"
        )
    };
    assert_eq!(errors("block = 16", &src("16")), Ok(()));
    let e = errors("block = 16", &src("8")).expect_err("rows 8 apart overlap");
    let m = e
        .iter()
        .find(|m| m.contains("data race on `out` (global memory)") && m.contains("for example"))
        .unwrap_or_else(|| panic!("no race with a pair: {e:?}"));
    // blocks of 16 x 1 x 1, thread (a, 0, 0), thread (b, 0, 0), element i: rows j != k of
    // 0..16 with 8 j + a == 8 k + b == i.
    let nums = example_numbers(m);
    let (a, b, i) = (nums[3], nums[6], nums[9]);
    let rows = |thread: i128| {
        (0..16)
            .filter(|j| 8 * j + thread == i)
            .collect::<Vec<i128>>()
    };
    assert!(
        a != b
            && a < 16
            && b < 16
            && rows(a).len() == 1
            && rows(b).len() == 1
            && rows(a) != rows(b),
        "not an execution: {m}"
    );
    // A pitch asserted to be a power of two is enumerated: at least 16 it is race-free; any
    // power of two (1, 2, 4, 8 collide) is a race at compile time.
    let pow2 =
        |fact: &str| src("cols").replace("let tx =", &format!("assert!({fact});\n    let tx ="));
    assert_eq!(
        errors("block = 16", &pow2("cols.is_power_of_two() && cols >= 16")),
        Ok(())
    );
    let e = errors("block = 16", &pow2("cols.is_power_of_two()")).expect_err("cols = 1 collides");
    assert!(
        e.iter()
            .any(|m| m.contains("data race on `out` (global memory)") && m.contains("for example")),
        "{e:?}"
    );
}

#[test]
fn a_running_shared_offset_with_a_constant_step_is_decided_exactly() {
    // Each iteration writes the next 64 elements: disjoint.
    let body = "let mut o = 0u32;\n for _ in 0..4u32 { s[o + t] = 1.0; o += 64; }";
    assert_eq!(shared(body), Ok(()));
    // Counting down, and a per-thread start (`o = t`, step 64) are disjoint too.
    assert_eq!(
        shared("let mut o = 192u32;\n for _ in 0..4u32 { s[o + t] = 1.0; o -= 64; }"),
        Ok(())
    );
    assert_eq!(
        shared("let mut o = t;\n for _ in 0..4u32 { s[o] = 1.0; o += 64; }"),
        Ok(())
    );
    // In a `while` loop, bounded by another induction variable of the same loop.
    assert_eq!(
        shared("let mut o = 0u32;\n let mut i = 0u32;\n while i < 4 { s[o + t] = 1.0; o += 64; i += 1; }"),
        Ok(())
    );
    // A step of 32: thread t + 32 in one iteration and thread t in the next write one element.
    let e = shared("let mut o = 0u32;\n for _ in 0..4u32 { s[o + t] = 1.0; o += 32; }")
        .expect_err("rows 32 apart overlap");
    let m = e
        .iter()
        .find(|m| m.contains("data race on shared array `s`") && m.contains("for example"))
        .unwrap_or_else(|| panic!("no race with a pair: {e:?}"));
    // "with blocks of 64 x 1 x 1 threads, thread (a, 0, 0) does the write and thread (b, 0, 0)
    // the write of `s[i]`": some iterations j != k of 0..4 with 32 j + a == 32 k + b == i.
    let nums = example_numbers(m);
    let (a, b, i) = (nums[3], nums[6], nums[9]);
    assert!(a != b && a < 64 && b < 64, "{m}");
    let at = |thread: i128| {
        (0..4)
            .filter(|j| 32 * j + thread == i)
            .collect::<Vec<i128>>()
    };
    let (ja, jb) = (at(a), at(b));
    assert!(
        ja.len() == 1 && jb.len() == 1 && ja != jb,
        "not an execution: {m}"
    );
}

#[test]
fn a_variable_not_updated_once_on_every_path_is_no_induction_variable() {
    // Under an `if`, or behind a `continue`, the update may not run: not `64 * n` (the proof
    // knows nothing of it, and does not accept it).
    for body in [
        "let mut o = 0u32;\n for _ in 0..4u32 { s[o + t] = 1.0; if flag > 0 { o += 64; } }",
        "let mut o = 0u32;\n for i in 0..4u32 { s[o + t] = 1.0; if i == flag { continue; } o += 64; }",
    ] {
        assert!(shared(body).is_err(), "{body}");
    }
    // Two updates, one of them top-level: with `flag > 0` the offset moves by 32 and rows
    // overlap, a real race.
    let two = "let mut o = 0u32;\n for _ in 0..4u32 { s[o + t] = 1.0; o += 64; if flag > 0 { o -= 32; } }";
    assert!(shared(two).is_err());
    // A step the loop changes is not loop-invariant.
    let varying = "let mut o = 0u32;\n let mut d = 64u32;\n for _ in 0..4u32 { s[o + t] = 1.0; o += d; d = 32; }";
    assert!(shared(varying).is_err());
    // In a loop with a step of its own the iteration number is the counter's step count:
    // `i` takes 0 and 2, `o` 0 and 128, so `o + t + 32 * i` is `t` then `192 + t`.
    let stepped = "let mut o = 0u32;\n for i in (0..4u32).step_by(2) { if t < 32 { s[o + t + 32 * i] = 1.0; } o += 128; }";
    assert_eq!(shared(stepped), Ok(()));
    // And tied by that step: `o` goes 64, 48 while `i` goes 0, 2, so the second iteration
    // writes `80 + t` and the first `64 + t`: threads `t + 16` and `t` meet (were `i` taken
    // as the iteration number itself, the index would be `64 + t` in every iteration).
    let down = "let mut o = 64u32;\n for i in (0..4u32).step_by(2) { if t < 32 { s[o + t + 16 * i] = 1.0; } o -= 16; }";
    let e = shared(down).expect_err("threads t + 16 and t meet");
    assert!(e.iter().any(|m| m.contains("data race")), "{e:?}");
}
