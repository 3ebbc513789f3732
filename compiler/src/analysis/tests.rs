//! Verdict tables for the barrier analyses: the WebGPU conformance suite's uniformity families
//! (uniformity.spec.ts: basics, compute builtin values, the loop-statement table, function
//! variables, short-circuit expressions), translated to kernels, and the classic shared-memory
//! kernels with each barrier removed. Every case states its verdict; a wrong verdict in either
//! direction fails. Rendered diagnostics are checked by the trybuild cases in `ui-tests/`.

use crate::compile_str;

const SIGNATURE: &str = "fn k(out: &mut [f32], input: &[f32], n: u32)";

/// Compiles `body` as a kernel; `Ok` or the error messages joined.
fn verdict(attr: &str, body: &str) -> Result<(), String> {
    let src = format!("{SIGNATURE} {{\n    let tile = shared::<[f32; 64]>();\n{body}\n}}");
    compile_str(attr, &src, "k.rs").map(|_| ()).map_err(|d| {
        d.iter()
            .map(|d| d.full_message())
            .collect::<Vec<_>>()
            .join("\n")
    })
}

fn expect(case: &str, body: &str, accept: bool, needle: &str) -> Option<String> {
    match (verdict("", body), accept) {
        (Ok(()), true) => None,
        (Err(e), false) if e.contains(needle) => None,
        (Err(e), false) => Some(format!(
            "{case}: rejected, but the message lacks {needle:?}:\n{e}\n{body}"
        )),
        (Ok(()), false) => Some(format!("{case}: accepted, should be rejected:\n{body}")),
        (Err(e), true) => Some(format!(
            "{case}: rejected, should be accepted:\n{e}\n{body}"
        )),
    }
}

/// Boolean conditions and whether they are block-uniform.
fn conditions() -> Vec<(&'static str, &'static str, bool)> {
    vec![
        ("literal", "true", true),
        ("scalar parameter", "n > 3", true),
        ("block_idx", "block_idx().x == 0", true),
        ("block_dim", "block_dim().x > 32", true),
        ("grid_dim", "grid_dim().y > 1", true),
        ("slice length", "input.len() > 4", true),
        ("read-only load at a literal index", "input[0] > 1.0", true),
        (
            "read-only load at a uniform index",
            "input[block_idx().x] > 1.0",
            true,
        ),
        ("uniform variable", "{ let u = n * 2; u > 3 }", true),
        (
            "assume_uniform",
            "unsafe { assume_uniform(thread_idx().x < 4) }",
            true,
        ),
        ("uniform_load", "uniform_load(&tile[3]) > 1.0", true),
        (
            "uniform arithmetic",
            "(n + block_idx().x * 3) % 7 == 1",
            true,
        ),
        ("thread_idx().x", "thread_idx().x < 4", false),
        ("thread_idx().y", "thread_idx().y < 4", false),
        ("thread_idx().z", "thread_idx().z == 0", false),
        ("global_idx", "global_idx().x < 4", false),
        (
            "read-only load at a thread index",
            "input[thread_idx().x] > 1.0",
            false,
        ),
        ("load from &mut", "out[0] > 1.0", false),
        ("load from shared memory", "tile[0] > 1.0", false),
        (
            "variable from thread_idx",
            "{ let v = thread_idx().x; v > 3 }",
            false,
        ),
        ("mixed arithmetic", "n + thread_idx().x > 9", false),
        (
            "atomic result",
            "{ let old = out.atomic_add(0, 1.0); old > 2.0 }",
            false,
        ),
    ]
}

/// Statement shapes with a barrier, `C` standing for the condition.
fn shapes() -> Vec<(&'static str, &'static str)> {
    vec![
        ("if", "if C { sync_block_threads(); }"),
        ("if-else", "if C { unsafe { out[0] = 1.0; } } else { sync_block_threads(); }"),
        ("while", "let mut i = 0u32; while C && i < 4 { sync_block_threads(); i += 1; }"),
        ("early return", "if C { return; }\n sync_block_threads();"),
        ("break", "loop { sync_block_threads(); if C { break; } }"),
        ("continue before barrier", "for i in 0..8u32 { if C { continue; } sync_block_threads(); }"),
        ("variable assigned under C", "let mut x = 0u32; if C { x = 1; }\n if x == 1 { sync_block_threads(); }"),
        ("variable counted in a loop", "let mut k = 0u32; for i in 0..8u32 { if C { k += 1; } }\n if k > 2 { sync_block_threads(); }"),
        ("short circuit (right)", "if n > 0 && C { sync_block_threads(); }"),
        ("short circuit (left)", "if C || n > 0 { sync_block_threads(); }"),
        ("match", "let m = if C { 1 } else { 0 };\n match m { 0 => sync_block_threads(), _ => {} }"),
        ("nested loop bound", "for i in 0..n { let b = if C { 2u32 } else { 3u32 }; for j in 0..b { sync_block_threads(); } }"),
        ("labelled break", "'outer: for i in 0..4u32 { for j in 0..4u32 { if C { break 'outer; } } sync_block_threads(); }"),
        ("else-if chain", "if n == 0 { unsafe { out[0] = 1.0; } } else if C { sync_block_threads(); }"),
    ]
}

/// Shapes where the barrier is reached by every thread whatever `C` is.
fn always_uniform_shapes() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "barrier after an if",
            "if C { unsafe { out[0] = 1.0; } }\n sync_block_threads();",
        ),
        (
            "barrier after a loop with a break",
            "for i in 0..8u32 { if C { break; } }\n sync_block_threads();",
        ),
        (
            "barrier before a continue",
            "for i in 0..8u32 { sync_block_threads(); if C { continue; } unsafe { out[0] = 2.0; } }",
        ),
        (
            "barrier in a loop whose body continues early",
            "let mut i = 0u32; while i < n { i += 1; sync_block_threads(); if C { continue; } }",
        ),
        (
            "variable reassigned uniformly after the if",
            "let mut x = 0u32; if C { x = 1; }\n x = n;\n if x == 1 { sync_block_threads(); }",
        ),
        (
            "if with a returning arm, barrier inside the other arm",
            "if n > 3 { return; } else if C { unsafe { out[0] = 1.0; } }\n sync_block_threads();",
        ),
    ]
}

#[test]
fn uniformity_table() {
    let mut failures = Vec::new();
    let mut count = 0;
    for (cname, cond, uniform) in conditions() {
        for (sname, shape) in shapes() {
            // The right side of `&&` must be a plain expression (no statements to hoist).
            if sname == "short circuit (right)"
                && (cond.contains("{ let") || cond.contains("uniform_load"))
            {
                continue;
            }
            let body = shape.replace('C', &format!("({cond})"));
            count += 1;
            if let Some(f) = expect(
                &format!("{sname} / {cname}"),
                &body,
                uniform,
                "is not reached by every thread",
            ) {
                failures.push(f);
            }
        }
        for (sname, shape) in always_uniform_shapes() {
            let body = shape.replace('C', &format!("({cond})"));
            count += 1;
            if let Some(f) = expect(&format!("{sname} / {cname}"), &body, true, "") {
                failures.push(f);
            }
        }
    }
    assert!(count >= 400, "{count} cases");
    println!("uniformity table: {count} verdicts");
    assert!(
        failures.is_empty(),
        "{} of {count} verdicts wrong:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn divergence_messages_name_the_cause_and_the_origin() {
    let e = verdict(
        "",
        "let t = thread_idx().x;\n let k = t * 2;\n if k < 16 { sync_block_threads(); }",
    )
    .unwrap_err();
    assert!(
        e.contains("`sync_block_threads()` is not reached by every thread"),
        "{e}"
    );
    assert!(e.contains("this condition depends on `k`"), "{e}");
    assert!(
        e.contains("`k` comes from `thread_idx().x` through `t`"),
        "{e}"
    );
    let e = verdict(
        "",
        "if thread_idx().x == 0 { return; }\n sync_block_threads();",
    )
    .unwrap_err();
    assert!(e.contains("some threads leave by this `return`"), "{e}");
    let e = verdict(
        "",
        "for i in threads_in_block(0..100u32) { sync_block_threads(); }",
    )
    .unwrap_err();
    assert!(
        e.contains("`threads_in_block` gives each thread its own indices"),
        "{e}"
    );
    let e = verdict(
        "",
        "loop { if tile[1] > 0.0 { break; } sync_block_threads(); }",
    )
    .unwrap_err();
    assert!(e.contains("a load from shared array `tile`"), "{e}");
}

#[test]
fn strided_loops_over_blocks_are_uniform() {
    assert_eq!(verdict("", "for c in blocks_in_grid((0..n).step_by(64)) { sync_block_threads(); if thread_idx().x < 64 { tile[thread_idx().x] = 1.0; } sync_block_threads(); }"), Ok(()));
    assert!(verdict(
        "",
        "for c in threads_in_grid(0..n) { sync_block_threads(); }"
    )
    .is_err());
}

#[test]
fn uniform_load_needs_a_uniform_index_and_uniform_control_flow() {
    let e = verdict(
        "",
        "let x = uniform_load(&tile[thread_idx().x]);\n out[global_idx().x] = x;",
    )
    .unwrap_err();
    assert!(
        e.contains("the index of `uniform_load(&tile[..])` must be the same in every thread"),
        "{e}"
    );
    let e = verdict(
        "",
        "if thread_idx().x < 3 { let x = uniform_load(&tile[0]); out[global_idx().x] = x; }",
    )
    .unwrap_err();
    assert!(
        e.contains("`uniform_load` (which starts with a barrier) is not reached"),
        "{e}"
    );
    // Its result is uniform: a barrier under it is fine.
    assert_eq!(
        verdict(
            "",
            "if uniform_load(&tile[2]) > 0.5 { sync_block_threads(); }"
        ),
        Ok(())
    );
}

#[test]
fn assume_uniform_is_unsafe() {
    let e = verdict(
        "",
        "let u = assume_uniform(thread_idx().x);\n out[u] = 1.0;",
    )
    .unwrap_err();
    assert!(e.contains("`assume_uniform` is unsafe"), "{e}");
}

/// Shared-memory patterns: (name, body, accepted?, a word the error must contain).
fn hazard_cases() -> Vec<(&'static str, &'static str, bool, &'static str)> {
    vec![
        ("own element", "let t = thread_idx().x; tile[t] = 1.0; out[t] = tile[t];", true, ""),
        ("own element modulo 64 (threads 0 and 64 collide)", "let t = thread_idx().x % 64; tile[t] = 1.0;", false, "write-after-write"),
        ("neighbour without barrier", "let t = thread_idx().x; tile[t] = 1.0; out[t] = tile[t + 1];", false, "read-after-write"),
        ("neighbour with barrier", "let t = thread_idx().x; tile[t] = 1.0; sync_block_threads(); out[t] = tile[t + 1];", true, ""),
        ("even and odd", "let t = thread_idx().x; tile[2 * t] = 1.0; out[t] = tile[2 * t + 1];", true, ""),
        ("one writer", "if thread_idx().x == 0 { tile[0] = 1.0; }", true, ""),
        ("all write one element", "tile[0] = 1.0;", false, "write-after-write"),
        ("all write one element atomically", "tile.atomic_add(0, 1.0);", true, ""),
        ("atomic then plain read", "tile.atomic_add(0, 1.0); out[global_idx().x] = tile[0];", false, "read-after-write"),
        ("tree step", "let t = thread_idx().x; if t < n { tile[t] += tile[t + n]; }", true, ""),
        ("tree step without guard", "let t = thread_idx().x; tile[t] += tile[t + n];", false, "write-after-read"),
        ("guarded halves", "let t = thread_idx().x; if t < 32 { tile[t] = 1.0; } else { out[global_idx().x] = tile[t - 32]; }", false, "read-after-write"),
        ("read then write elsewhere", "let t = thread_idx().x; let v = tile[t]; tile[t + 32] = v;", false, "write-after-read"),
        ("disjoint halves", "let t = thread_idx().x; if t < 32 { tile[t] = 1.0; out[t] = tile[t]; }", true, ""),
        ("unsafe is left to the programmer", "unsafe { tile[0] = 1.0; }", true, ""),
        ("strided fill", "for i in threads_in_block(0..64u32) { tile[i] = 0.0; }", true, ""),
        ("strided fill then shifted read", "for i in threads_in_block(0..63u32) { tile[i] = 0.0; }\n for i in threads_in_block(0..63u32) { out[i] = tile[i + 1]; }", false, "read-after-write"),
        ("strided fill, barrier, shifted read", "for i in threads_in_block(0..63u32) { tile[i] = 0.0; }\n sync_block_threads();\n for i in threads_in_block(0..63u32) { out[i] = tile[i + 1]; }", true, ""),
        ("loop without the second barrier", "let t = thread_idx().x; for i in 0..n { tile[t] = input[i]; sync_block_threads(); out[t] = tile[(t + 1) % 64]; }", false, "write-after-read"),
        ("loop with both barriers", "let t = thread_idx().x; for i in 0..n { tile[t] = input[i]; sync_block_threads(); out[t] = tile[(t + 1) % 64]; sync_block_threads(); }", true, ""),
        ("uniform_load orders earlier writes", "if thread_idx().x == 0 { tile[5] = 2.0; }\n let v = uniform_load(&tile[5]); out[global_idx().x] = v;", true, ""),
        ("write after uniform_load", "let v = uniform_load(&tile[5]);\n tile[5] = v;", false, "write"),
        ("after an early return", "let t = thread_idx().x; if t == 0 { tile[1] = 5.0; return; }\n out[t] = tile[1];", false, "read-after-write"),
    ]
}

#[test]
fn hazard_table() {
    let mut failures = Vec::new();
    for (name, body, accept, needle) in hazard_cases() {
        if let Some(f) = expect(name, body, accept, needle) {
            failures.push(f);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A classic kernel with each of its barriers removed in turn.
fn each_barrier_removed(src: &str) -> Vec<String> {
    let marker = "sync_block_threads();";
    let positions: Vec<usize> = src.match_indices(marker).map(|(i, _)| i).collect();
    positions
        .iter()
        .map(|&p| format!("{}{}", &src[..p], &src[p + marker.len()..]))
        .collect()
}

const CLASSICS: &[(&str, &str)] = &[
    (
        "reverse",
        "fn reverse(out: &mut [f32], input: &[f32]) {
            let tile = shared::<[f32; 256]>();
            let t = thread_idx().x;
            let i = block_idx().x * block_dim().x + t;
            if i < input.len() as u32 { tile[t] = input[i]; }
            sync_block_threads();
            let r = block_dim().x - 1 - t;
            if i < out.len() as u32 { out[i] = tile[r]; }
        }",
    ),
    (
        "neighbor_reuse",
        "fn neighbor_reuse(out: &mut [i32], input: &[i32]) {
            let chunk = shared::<[i32; 256]>();
            let n = out.len() as u32;
            for chunk_offset in blocks_in_grid((0..n).step_by(256)) {
                for idx in threads_in_block(0..256u32) { chunk[idx] = input[chunk_offset + idx]; }
                sync_block_threads();
                for idx in threads_in_block(0..256u32) {
                    let neighbor = (idx + 1) % 256;
                    out[chunk_offset + idx] = chunk[idx] + chunk[neighbor];
                }
                sync_block_threads();
            }
        }",
    ),
    (
        "tree reduction",
        "fn reduce(partial: &mut [f32], input: &[f32]) {
            let buf = shared::<[f32; 256]>();
            let t = thread_idx().x;
            let i = global_idx().x;
            buf[t] = if i < input.len() as u32 { input[i] } else { 0.0 };
            sync_block_threads();
            let mut s = block_dim().x / 2;
            while s > 0 {
                if t < s { buf[t] += buf[t + s]; }
                sync_block_threads();
                s /= 2;
            }
            if t == 0 { partial[block_idx().x] = buf[0]; }
        }",
    ),
    (
        "Hillis-Steele scan",
        "fn scan(out: &mut [u32], input: &[u32]) {
            let buf = shared::<[u32; 256]>();
            let t = thread_idx().x;
            let i = global_idx().x;
            buf[t] = if i < input.len() as u32 { input[i] } else { 0 };
            sync_block_threads();
            let mut offset = 1u32;
            while offset < block_dim().x {
                let mut add = 0u32;
                if t >= offset { add = buf[t - offset]; }
                sync_block_threads();
                buf[t] += add;
                sync_block_threads();
                offset *= 2;
            }
            if i < out.len() as u32 { out[i] = buf[t]; }
        }",
    ),
    (
        "tiled matmul",
        "fn matmul(c: &mut [f32], a: &[f32], b: &[f32], n: u32) {
            let ta = shared::<[[f32; 16]; 16]>();
            let tb = shared::<[[f32; 16]; 16]>();
            let tx = thread_idx().x;
            let ty = thread_idx().y;
            let row = block_idx().y * 16 + ty;
            let col = block_idx().x * 16 + tx;
            let mut acc = 0.0f32;
            for t in 0..(n + 15) / 16 {
                ta[ty][tx] = if row < n && t * 16 + tx < n { a[row * n + t * 16 + tx] } else { 0.0 };
                tb[ty][tx] = if t * 16 + ty < n && col < n { b[(t * 16 + ty) * n + col] } else { 0.0 };
                sync_block_threads();
                for k in 0..16u32 { acc += ta[ty][k] * tb[k][tx]; }
                sync_block_threads();
            }
            if row < n && col < n { c[row * n + col] = acc; }
        }",
    ),
    (
        "padded transpose",
        "fn transpose(out: &mut [f32], input: &[f32], width: u32, height: u32) {
            let tile = shared::<[[f32; 33]; 32]>();
            let tx = thread_idx().x;
            let ty = thread_idx().y;
            let x = block_idx().x * 32 + tx;
            let y = block_idx().y * 32 + ty;
            if x < width && y < height { tile[ty][tx] = input[y * width + x]; }
            sync_block_threads();
            let ox = block_idx().y * 32 + tx;
            let oy = block_idx().x * 32 + ty;
            if ox < height && oy < width { out[oy * height + ox] = tile[tx][ty]; }
        }",
    ),
    (
        "stencil with halo",
        "fn stencil(out: &mut [f32], input: &[f32]) {
            let tile = shared::<[f32; 262]>();
            let t = thread_idx().x;
            let g = global_idx().x;
            let n = input.len() as u32;
            tile[t + 3] = if g < n { input[g] } else { 0.0 };
            if t < 3 {
                tile[t] = if g >= 3 && g - 3 < n { input[g - 3] } else { 0.0 };
                tile[t + block_dim().x + 3] = if g + block_dim().x < n { input[g + block_dim().x] } else { 0.0 };
            }
            sync_block_threads();
            let mut acc = 0.0f32;
            for o in 0..7u32 { acc += tile[t + o]; }
            if g < n { out[g] = acc; }
        }",
    ),
    (
        "shared histogram",
        "fn histogram(bins: &mut [u32], data: &[u32]) {
            let hist = shared::<[u32; 64]>();
            for b in threads_in_block(0..64u32) { hist[b] = 0; }
            sync_block_threads();
            for i in threads_in_grid(0..data.len() as u32) { hist.atomic_add(data[i] % 64, 1); }
            sync_block_threads();
            for b in threads_in_block(0..64u32) { bins.atomic_add(b, hist[b]); }
        }",
    ),
];

#[test]
fn classic_kernels_are_accepted_and_each_missing_barrier_is_a_named_race() {
    let mut failures = Vec::new();
    for (name, src) in CLASSICS {
        if let Err(d) = compile_str("", src, "k.rs") {
            failures.push(format!(
                "{name}: rejected:\n{}",
                d.iter()
                    .map(|d| d.full_message())
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
            continue;
        }
        let variants = each_barrier_removed(src);
        assert!(!variants.is_empty(), "{name} has barriers");
        for (i, v) in variants.iter().enumerate() {
            match compile_str("", v, "k.rs") {
                Ok(_) => failures.push(format!("{name} without barrier {}: accepted", i + 1)),
                Err(d) => {
                    let text = d
                        .iter()
                        .map(|d| d.full_message())
                        .collect::<Vec<_>>()
                        .join("\n");
                    if !text.contains("data race on shared array") {
                        failures.push(format!(
                            "{name} without barrier {}: wrong error:\n{text}",
                            i + 1
                        ));
                    }
                }
            }
            // And `sync = "auto"` repairs every variant.
            if let Err(d) = compile_str("sync = \"auto\"", v, "k.rs") {
                failures.push(format!(
                    "{name} without barrier {}, auto: {}",
                    i + 1,
                    d[0].full_message()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn auto_mode_places_as_many_barriers_as_the_hand_written_kernels() {
    for (name, src) in CLASSICS {
        let written = src.matches("sync_block_threads();").count();
        let bare = src.replace("sync_block_threads();", "");
        let c = compile_str("sync = \"auto\"", &bare, "k.rs")
            .unwrap_or_else(|d| panic!("{name}: {}", d[0].full_message()));
        let placed = c.cuda.matches("__syncthreads();").count();
        assert!(
            placed <= written,
            "{name}: auto placed {placed} barriers, the hand-written kernel has {written}\n{}",
            c.cuda
        );
        assert!(placed >= 1, "{name}: auto placed no barrier");
    }
}

#[test]
fn race_messages_name_the_array_both_accesses_a_pair_of_threads_and_the_fix() {
    let e = verdict(
        "",
        "let t = thread_idx().x;\n tile[t] = 1.0;\n out[t] = tile[63 - t];",
    )
    .unwrap_err();
    assert!(
        e.contains("data race on shared array `tile`: read-after-write"),
        "{e}"
    );
    assert!(e.contains("the write of `tile` by another thread"), "{e}");
    assert!(e.contains("for example, with 40 threads per block, thread 39 does the write and thread 24 the read of `tile[39]`"), "{e}");
    assert!(
        e.contains("insert `sync_block_threads();` before line"),
        "{e}"
    );
}

#[test]
fn useless_and_adjacent_barriers_are_reported() {
    let c = compile_str(
        "",
        &format!("{SIGNATURE} {{ sync_block_threads(); sync_block_threads(); unsafe {{ out[0] = 1.0; }} }}"),
        "k.rs",
    )
    .unwrap();
    assert!(c.report.text.contains("merged"), "{}", c.report.text);
    assert!(
        c.report.text.contains("orders no shared-memory access"),
        "{}",
        c.report.text
    );
    assert_eq!(
        c.cuda.matches("__syncthreads();").count(),
        1,
        "check mode keeps one of the two"
    );
    let c = compile_str(
        "sync = \"auto\"",
        &format!("{SIGNATURE} {{ sync_block_threads(); sync_block_threads(); unsafe {{ out[0] = 1.0; }} }}"),
        "k.rs",
    )
    .unwrap();
    assert_eq!(
        c.cuda.matches("__syncthreads();").count(),
        0,
        "auto mode removes it"
    );
}

#[test]
fn auto_mode_explains_when_no_barrier_can_help() {
    let body =
        "let t = thread_idx().x; if t < 32 { tile[t] = 1.0; } else { out[global_idx().x] = tile[t - 32]; }";
    let e = verdict("sync = \"auto\"", body).unwrap_err();
    assert!(
        e.contains("`sync = \"auto\"` cannot place a barrier"),
        "{e}"
    );
}

/// The CTS "functions" family, for `#[device]` helpers (inlined, so each call is analysed in
/// its context): barriers reached through calls, uniformity of results and `&mut` parameters,
/// trailing sync, recursion.
#[test]
fn helper_verdicts() {
    const HELPERS: &[&str] = &[
        "#[device] fn wait() { sync_block_threads(); }",
        "#[device] fn twice(x: u32) -> u32 { x * 2 }",
        "#[device] fn mine() -> u32 { thread_idx().x }",
        "#[device] fn set_mine(v: &mut u32) { *v = thread_idx().x; }",
        "#[device] fn set_uniform(v: &mut u32, n: u32) { *v = n + 1; }",
        "#[device] fn nested() { wait(); }",
        "#[device] fn store(tile: &mut [f32; 64], v: f32) { tile[thread_idx().x] = v; }",
        "#[device(trailing_sync = false)] fn store_nosync(tile: &mut [f32; 64], v: f32) { tile[thread_idx().x] = v; }",
        "#[device] fn early(x: u32) -> u32 { if x > 3 { return 1; } sync_block_threads(); 2 }",
        "#[device] fn ping(n: u32) -> u32 { pong(n) }",
        "#[device] fn pong(n: u32) -> u32 { ping(n) }",
    ];
    let cases: &[(&str, &str, bool, &str)] = &[
        ("barrier helper, uniform call", "wait();", true, ""),
        (
            "barrier helper under divergent if",
            "if thread_idx().x < 4 { wait(); }",
            false,
            "this call of `wait`",
        ),
        (
            "barrier through two helpers",
            "if thread_idx().x < 4 { nested(); }",
            false,
            "through `wait`",
        ),
        (
            "uniform result of uniform argument",
            "let m = twice(n); for _i in 0..m { wait(); }",
            true,
            "",
        ),
        (
            "non-uniform result of uniform argument",
            "let m = twice(thread_idx().x); for _i in 0..m { wait(); }",
            false,
            "not reached by every thread",
        ),
        (
            "helper reading thread_idx",
            "if mine() < 4 { wait(); }",
            false,
            "not reached by every thread",
        ),
        (
            "&mut made non-uniform",
            "let mut v = 0u32; set_mine(&mut v); if v < 4 { wait(); }",
            false,
            "not reached by every thread",
        ),
        (
            "&mut kept uniform",
            "let mut v = 0u32; set_uniform(&mut v, n); if v < 4 { wait(); }",
            true,
            "",
        ),
        (
            "trailing sync orders the read",
            "store(&mut tile, 1.0); out[global_idx().x] = tile[63 - thread_idx().x];",
            true,
            "",
        ),
        (
            "no trailing sync: the read races",
            "store_nosync(&mut tile, 1.0); out[global_idx().x] = tile[63 - thread_idx().x];",
            false,
            "data race",
        ),
        (
            "trailing sync at a divergent call",
            "if thread_idx().x < 4 { store(&mut tile, 1.0); } out[global_idx().x] = tile[63 - thread_idx().x];",
            false,
            "ends on a barrier",
        ),
        (
            "redundant trailing sync at a divergent call",
            "if thread_idx().x < 4 { store(&mut tile, 1.0); }",
            true,
            "",
        ),
        (
            "early return before a barrier, uniform argument",
            "out[global_idx().x] = early(n) as f32;",
            true,
            "",
        ),
        (
            "early return before a barrier, divergent argument",
            "out[global_idx().x] = early(thread_idx().x) as f32;",
            false,
            "not reached by every thread",
        ),
        (
            "recursion",
            "out[global_idx().x] = ping(n) as f32;",
            false,
            "recursive call",
        ),
    ];
    let mut failures = Vec::new();
    for (case, body, accept, needle) in cases {
        let src = format!("{SIGNATURE} {{\n    let tile = shared::<[f32; 64]>();\n{body}\n}}");
        let got = crate::compile_str_with_helpers("", &src, HELPERS, "k.rs")
            .map(|_| ())
            .map_err(|d| {
                d.iter()
                    .map(|d| d.full_message())
                    .collect::<Vec<_>>()
                    .join("\n")
            });
        match (got, accept) {
            (Ok(()), true) => {}
            (Err(e), false) if e.contains(needle) => {}
            (Err(e), false) => failures.push(format!("{case}: rejected without {needle:?}:\n{e}")),
            (Ok(()), false) => failures.push(format!("{case}: accepted, should be rejected")),
            (Err(e), true) => failures.push(format!("{case}: rejected, should be accepted:\n{e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `let alias = tile;` is a second name of the same shared array: the race analysis sees the
/// accesses through either name as accesses of one array.
#[test]
fn a_second_name_of_a_shared_array_is_the_same_array_to_the_race_analysis() {
    let cases: &[(&str, &str, bool, &str)] = &[
        (
            "write through the alias, neighbour read through the original",
            "let t = thread_idx().x; let alias = tile; alias[t] = 1.0; out[t] = tile[t + 1];",
            false,
            "data race on shared array `tile`: read-after-write",
        ),
        (
            "write through the original, neighbour read through the alias",
            "let t = thread_idx().x; let alias = tile; tile[t] = 1.0; out[t] = alias[(t + 1) % 64];",
            false,
            "data race on shared array `tile`: read-after-write",
        ),
        (
            "read through the alias, write elsewhere through the original",
            "let t = thread_idx().x; let alias = tile; let v = alias[t]; tile[t + 32] = v;",
            false,
            "write-after-read",
        ),
        (
            "an alias of an alias",
            "let t = thread_idx().x; let a = tile; let b = a; b[t] = 1.0; out[t] = tile[t + 1];",
            false,
            "read-after-write",
        ),
        (
            "the same with a barrier in between",
            "let t = thread_idx().x; let alias = tile; alias[t] = 1.0; sync_block_threads(); out[t] = tile[t + 1];",
            true,
            "",
        ),
        (
            "each thread its own element through both names",
            "let t = thread_idx().x; let alias = tile; alias[t] = 1.0; out[t] = tile[t];",
            true,
            "",
        ),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(name, body, accept, needle)| expect(name, body, *accept, needle))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
