//! Declared block shapes (`#[kernel(block = (x, y, z))]`) and strided loops in the race proof:
//! the CUDA samples' transpose is race-free for 32 x 8 blocks, which it declares, and racy
//! for taller blocks, where the printed pair of threads is a real collision.

use crate::compile_str;

const TRANSPOSE: &str = "fn transpose(out: &mut [f32], input: &[f32], width: u32, height: u32) {
    let tile = shared::<[[f32; 33]; 32]>();
    let x = block_idx().x * 32 + thread_idx().x;
    let y = block_idx().y * 32 + thread_idx().y;
    for j in (0..32).step_by(8) {
        if x < width && y + j < height {
            tile[thread_idx().y + j][thread_idx().x] = input[(y + j) * width + x];
        }
    }
    sync_block_threads();
    let x = block_idx().y * 32 + thread_idx().x;
    let y = block_idx().x * 32 + thread_idx().y;
    for j in (0..32).step_by(8) {
        if x < height && y + j < width {
            out[(y + j) * height + x] = tile[thread_idx().x][thread_idx().y + j];
        }
    }
}";

/// The numbers in `(a, b, c)` (or `(a, b)`, z being 0) after `after` in `text`.
fn triple(text: &str, after: &str) -> Option<[i128; 3]> {
    let rest = &text[text.find(after)? + after.len()..];
    let inner = &rest[rest.find('(')? + 1..rest.find(')')?];
    let v: Vec<i128> = inner
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    Some([*v.first()?, *v.get(1)?, v.get(2).copied().unwrap_or(0)])
}

#[test]
fn the_transpose_is_race_free_for_its_declared_shape() {
    let c = compile_str("block = (32, 8)", TRANSPOSE, "k.rs");
    assert!(c.is_ok(), "{:?}", c.err().map(|d| d[0].full_message()));
    let c = compile_str("block = (32, 8, 1)", TRANSPOSE, "k.rs");
    assert!(c.is_ok());
}

#[test]
fn without_its_shape_the_transpose_races_and_the_witness_is_real() {
    let errors = match compile_str("", TRANSPOSE, "k.rs") {
        Ok(_) => panic!("taller blocks than 8 make the transpose race"),
        Err(d) => d,
    };
    let all: Vec<String> = errors.iter().map(|d| d.full_message()).collect();
    assert!(
        all.iter()
            .all(|m| m.contains("data race on shared array `tile`")),
        "{all:?}"
    );
    // At least one error shows a pair of threads (the others say where a barrier goes).
    let msg = all
        .iter()
        .find(|m| m.contains("for example"))
        .unwrap_or_else(|| panic!("no witness in {all:?}"));
    // The pair: thread a writes `tile[ay + 8 i][ax]`, thread b `tile[by + 8 j][bx]`, both in
    // range, equal: so ax == bx and ay - by is a nonzero multiple of 8 that the block has.
    let example = &msg[msg.find("for example").unwrap_or(0)..];
    let a = triple(example, "thread ").unwrap_or_else(|| panic!("a first thread in {msg}"));
    let b = triple(example, "and thread ").expect("a second thread");
    assert_eq!(a[0], b[0], "{msg}");
    let dy = (a[1] - b[1]).abs();
    assert!(dy > 0 && dy % 8 == 0 && dy < 32, "{msg}");
}

#[test]
fn another_declared_shape_is_checked_too() {
    // 32 x 16 blocks: rows 0 and 8 collide.
    let all = match compile_str("block = (32, 16)", TRANSPOSE, "k.rs") {
        Ok(_) => panic!("16 rows race"),
        Err(d) => d.iter().map(|d| d.full_message()).collect::<Vec<_>>(),
    };
    // Every witness is of the declared shape.
    assert!(
        all.iter().any(|m| m.contains("blocks of 32 x 16 x 1")),
        "{all:?}"
    );
    assert!(!all
        .iter()
        .any(|m| m.contains("blocks of") && !m.contains("32 x 16 x 1")));
}

#[test]
fn block_shapes_are_checked_when_parsed() {
    for (attr, needle) in [
        ("block = (0, 8)", "at least 1"),
        ("block = (64, 32)", "at most 1024"),
        ("block = (32, 8), launch_bounds = 128", "more threads than"),
        ("block = (32, 8, 1, 1)", "the block's shape"),
    ] {
        let msg = match compile_str(attr, TRANSPOSE, "k.rs") {
            Ok(_) => panic!("{attr} is not a block shape"),
            Err(d) => d[0].full_message(),
        };
        assert!(msg.contains(needle), "{attr}: {msg}");
    }
}
