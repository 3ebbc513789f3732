//! Asynchronous copies (`cp_async`): a verdict table of pipelines, each accepted or rejected
//! with the words its error must contain, and what `sync = "auto"` places. A copy is in flight
//! from its issue to its thread's wait that covers its group; every access to its element
//! meanwhile is an error, the issuing thread's own included.

use crate::compile_str;

/// Compiles `body` in a kernel of one-dimensional blocks of 64 threads with a tile of three
/// stages (`tile[s][t]`): `Ok(cuda)` or the error messages joined.
fn verdict(attr: &str, body: &str) -> Result<String, String> {
    let src = format!(
        "fn k(out: &mut [f32], x: &[f32], n: u32) {{\n    let tile = shared::<[[f32; 64]; 3]>();\n    let t = thread_idx().x as usize;\n    let n = n as usize;\n    let mut acc = 0.0f32;\n{body}\n    out[t] = acc;\n}}"
    );
    let attr = if attr.is_empty() {
        "block = 64".to_string()
    } else {
        format!("block = 64, {attr}")
    };
    compile_str(&attr, &src, "k.rs")
        .map(|c| c.cuda)
        .map_err(|d| {
            d.iter()
                .map(|d| d.full_message())
                .collect::<Vec<_>>()
                .join("\n")
        })
}

/// Kernels that must compile.
const ACCEPTED: &[(&str, &str)] = &[
    (
        "one stage, waited, published",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit(); cp_async_wait(0); sync_block_threads(); acc = tile[0][63 - t];",
    ),
    (
        "a thread reads its own copy after its wait, with no barrier",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit(); cp_async_wait(0); acc = tile[0][t];",
    ),
    (
        "two stages",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit();
         for s in 0..n {
             if s + 1 < n { cp_async(&mut tile[(s + 1) % 2][t], &x[(s + 1) * 64 + t]); }
             cp_async_commit(); cp_async_wait(1); sync_block_threads();
             acc += tile[s % 2][63 - t];
             sync_block_threads();
         }",
    ),
    (
        "three stages, two copies ahead",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit();
         cp_async(&mut tile[1][t], &x[64 + t]); cp_async_commit();
         for s in 0..n {
             if s + 2 < n { cp_async(&mut tile[(s + 2) % 3][t], &x[(s + 2) * 64 + t]); }
             cp_async_commit(); cp_async_wait(2); sync_block_threads();
             acc += tile[s % 3][63 - t];
             sync_block_threads();
         }",
    ),
    (
        "a copy by some threads only",
        "if t < 32 { cp_async(&mut tile[0][t], &x[t]); } cp_async_commit(); cp_async_wait(0); sync_block_threads(); if t >= 32 { acc = tile[0][t - 32]; }",
    ),
    (
        "copies into disjoint stages may be in flight together",
        "cp_async(&mut tile[0][t], &x[t]); cp_async(&mut tile[1][t], &x[64 + t]); cp_async_commit(); cp_async_wait(0); sync_block_threads(); acc = tile[0][63 - t] + tile[1][t];",
    ),
    (
        "a loop of copies, one wait after it",
        "for s in 0..3 { cp_async(&mut tile[s][t], &x[s * 64 + t]); } cp_async_commit(); cp_async_wait(0); sync_block_threads(); acc = tile[2][63 - t];",
    ),
];

/// Kernels that must not compile, with words their error must contain.
const REJECTED: &[(&str, &str, &str)] = &[
    (
        "no wait: a barrier does not land a copy",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit(); sync_block_threads(); acc = tile[0][63 - t];",
        "cp_async_wait(0); sync_block_threads();",
    ),
    (
        "a thread's own read before the wait",
        "cp_async(&mut tile[0][t], &x[t]); acc = tile[0][t]; cp_async_commit(); cp_async_wait(0);",
        "cp_async_commit(); cp_async_wait(0);",
    ),
    (
        "waited but not published to the other threads",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit(); cp_async_wait(0); acc = tile[0][63 - t];",
        "read-after-write",
    ),
    (
        "a wait before the commit does not cover the copy",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_wait(0); cp_async_commit(); sync_block_threads(); acc = tile[0][63 - t];",
        "may be in flight",
    ),
    (
        "two stages, a wait that leaves the stage to read in flight",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit();
         for s in 0..n {
             if s + 1 < n { cp_async(&mut tile[(s + 1) % 2][t], &x[(s + 1) * 64 + t]); }
             cp_async_commit(); cp_async_wait(2); sync_block_threads();
             acc += tile[s % 2][63 - t];
             sync_block_threads();
         }",
        "cp_async_wait(1)",
    ),
    (
        "two stages, the last iteration commits nothing, so its wait leaves its stage in flight",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit();
         for s in 0..n {
             if s + 1 < n { cp_async(&mut tile[(s + 1) % 2][t], &x[(s + 1) * 64 + t]); cp_async_commit(); }
             cp_async_wait(1); sync_block_threads();
             acc += tile[s % 2][63 - t];
             sync_block_threads();
         }",
        "may be in flight",
    ),
    (
        "two stages, no barrier before the refill",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit();
         for s in 0..n {
             if s + 1 < n { cp_async(&mut tile[(s + 1) % 2][t], &x[(s + 1) * 64 + t]); }
             cp_async_commit(); cp_async_wait(1); sync_block_threads();
             acc += tile[s % 2][63 - t];
         }",
        "write-after-read",
    ),
    (
        "two stages, the copy refills the stage being read",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit();
         for s in 0..n {
             if s + 1 < n { cp_async(&mut tile[s % 2][t], &x[(s + 1) * 64 + t]); }
             cp_async_commit(); cp_async_wait(1); sync_block_threads();
             acc += tile[s % 2][63 - t];
             sync_block_threads();
         }",
        "may be in flight",
    ),
    (
        "a wait only some threads reach lands nothing for the others",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit(); if t < 32 { cp_async_wait(0); } sync_block_threads(); acc = tile[0][63 - t];",
        "may be in flight",
    ),
    (
        "a store into an element in flight",
        "cp_async(&mut tile[0][t], &x[t]); tile[0][t] = 1.0; cp_async_commit(); cp_async_wait(0);",
        "write",
    ),
    (
        "two copies into one element in flight together",
        "cp_async(&mut tile[0][t], &x[t]); cp_async(&mut tile[0][t], &x[64 + t]); cp_async_commit(); cp_async_wait(0);",
        "may be in flight",
    ),
    (
        "a copy still in flight when a thread returns, read by the others",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit(); if t == 0 { return; } cp_async_wait(0); sync_block_threads(); acc = tile[0][t - 1];",
        "",
    ),
];

#[test]
fn pipelines_get_their_verdicts() {
    let mut wrong = Vec::new();
    for (case, body) in ACCEPTED {
        if let Err(e) = verdict("", body) {
            wrong.push(format!("{case}: rejected, should be accepted:\n{e}"));
        }
    }
    for (case, body, needle) in REJECTED {
        match verdict("", body) {
            Ok(_) => wrong.push(format!("{case}: accepted, should be rejected")),
            Err(e) if !e.contains(needle) => {
                wrong.push(format!("{case}: the error lacks {needle:?}:\n{e}"));
            }
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// `sync = "auto"` lands what the kernel reads: a wait (after a commit, where the group is
/// open) and, for other threads' copies, a barrier, as late as possible.
#[test]
fn auto_places_the_waits_and_barriers() {
    let cuda = verdict(
        "sync = \"auto\"",
        "cp_async(&mut tile[0][t], &x[t]); acc = tile[0][63 - t];",
    )
    .unwrap();
    let body = &cuda[cuda.find("cuphase::cp_async<4>").unwrap()..];
    let order = [
        "cuphase::cp_async<4>",
        "cuphase::cp_async_commit();",
        "cuphase::cp_async_wait<0>();",
        "__syncthreads();",
        "tile[0u][63ull - t]",
    ];
    let mut at = 0;
    for piece in order {
        let found = body[at..]
            .find(piece)
            .unwrap_or_else(|| panic!("{piece} in order:\n{body}"));
        at += found + piece.len();
    }
    // A two-stage pipeline written without waits or barriers: the wait placed before the read
    // leaves the next stage's copy in flight, a barrier publishes the stage, and another
    // orders the reads of a stage before its refill. (The refill's own wait, placed for the
    // copy from before the loop, counts the commits of the first iteration: `wait(0)`.)
    let cuda = verdict(
        "sync = \"auto\"",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit();
         for s in 0..n {
             if s + 1 < n { cp_async(&mut tile[(s + 1) % 2][t], &x[(s + 1) * 64 + t]); }
             cp_async_commit();
             acc += tile[s % 2][63 - t];
         }",
    )
    .unwrap();
    let read = cuda.find("acc += tile[s % 2ull][63ull - t];").unwrap();
    let before_read = &cuda[..read];
    let wait = before_read.rfind("cuphase::cp_async_wait<1>();").unwrap();
    assert!(before_read[wait..].contains("__syncthreads();"), "{cuda}");
    assert_eq!(cuda.matches("__syncthreads();").count(), 2, "{cuda}");
}

/// A three-stage pipeline written without waits or barriers: `sync = "auto"` waits for the
/// stage a step reads with `wait(2)` (the deepest wait that lands it), publishes it with a
/// barrier, and orders each stage's reads before its refill two steps on with another. (The
/// refill also gets a `wait(1)` before that barrier, for the copy the proof cannot tell from
/// that stage's last one: the refill then starts once the step's own stage has landed, which
/// the read needs anyway, so two copies are still in flight during each read.)
#[test]
fn auto_places_the_waits_of_a_three_stage_pipeline() {
    let cuda = verdict(
        "sync = \"auto\"",
        "cp_async(&mut tile[0][t], &x[t]); cp_async_commit();
         if 1 < n { cp_async(&mut tile[1][t], &x[64 + t]); }
         cp_async_commit();
         for s in 0..n {
             if s + 2 < n { cp_async(&mut tile[(s + 2) % 3][t], &x[(s + 2) * 64 + t]); }
             cp_async_commit();
             acc += tile[s % 3][63 - t];
         }",
    )
    .unwrap();
    let read = cuda.find("acc += tile[s % 3ull][63ull - t];").unwrap();
    let before_read = &cuda[..read];
    let wait = before_read.rfind("cuphase::cp_async_wait<2>();").unwrap();
    assert!(before_read[wait..].contains("__syncthreads();"), "{cuda}");
    assert_eq!(cuda.matches("__syncthreads();").count(), 2, "{cuda}");
}
