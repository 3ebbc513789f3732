//! Warpgroup multiplies (`wgmma_*`): a verdict table of kernels, each accepted or rejected with
//! the words its error must contain, and what `sync = "auto"` places. A multiply's tiles are
//! read from its issue to its thread's `wgmma_wait` that covers its group, and its accumulator
//! is written until then.

use crate::compile_str;

/// Compiles `body` in a kernel of 256 threads (two warpgroups) with two tiles of four stages
/// of 512 chunks (`a_tile[s * 512 + ..]`) and a 64x64 accumulator `acc`: `Ok(cuda)` or the
/// error messages joined.
fn verdict(attr: &str, body: &str) -> Result<String, String> {
    let src = format!(
        "fn k(out: &mut [f32], x: &[[bf16; 8]], n: u32) {{\n    let a_tile = shared::<[[bf16; 8]; 2048]>();\n    let b_tile = shared::<[[bf16; 8]; 2048]>();\n    let t = thread_idx().x as usize;\n    let g = thread_idx().y as usize;\n    let n = n as usize;\n    let mut acc = [0.0f32; 32];\n{body}\n    out[g * 128 + t] = acc[0];\n}}"
    );
    let attr = if attr.is_empty() {
        "block = (128, 2, 1)".to_string()
    } else {
        format!("block = (128, 2, 1), {attr}")
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

/// Fills stage `s` of both tiles (each thread 2 chunks of each).
fn fill(s: &str) -> String {
    format!("for i in 0..2 {{ cp_async(&mut a_tile[{s} * 512 + i * 256 + g * 128 + t], &x[i * 256 + g * 128 + t]); cp_async(&mut b_tile[{s} * 512 + i * 256 + g * 128 + t], &x[i * 256 + g * 128 + t]); }}")
}

/// The four-stage pipeline of `gemm_bf16_wgmma`: stages filled two ahead, each step's
/// multiplies waited for at the end of the next step (`wgmma_wait(wait)`).
fn pipeline(wait: u32) -> String {
    let (f0, f1, f2) = (fill("0"), fill("1"), fill("((step + 2) % 4)"));
    format!(
        "{f0} cp_async_commit(); {f1} cp_async_commit();
        for step in 0..n {{
            cp_async_wait(1);
            sync_block_threads();
            if step + 2 < n {{ {f2} }}
            cp_async_commit();
            let s = step % 4;
            for kk in 0..4 {{ wgmma_m64n64k16(&mut acc, &a_tile[s * 512 + kk * 2], &b_tile[s * 512 + kk * 2]); }}
            wgmma_commit();
            wgmma_wait({wait});
        }}
        wgmma_wait(0);"
    )
}

/// The attention's pipeline (`attention_wgmma`) in `stages` stages filled two ahead: `s` from
/// the stage's `a_tile`, then `acc += p b` with `p` made from `s` in registers, that multiply
/// left in flight until the next step's wait (past its barrier and refill).
fn registers_pipeline(stages: u32) -> String {
    let (f0, f1) = (fill("0"), fill("1"));
    let f2 = fill(&format!("((step + 2) % {stages})"));
    format!(
        "{f0} cp_async_commit(); {f1} cp_async_commit();
        let mut p = [bf16::ZERO; 8];
        let mut s = [0.0f32; 32];
        for step in 0..n {{
            cp_async_wait(1);
            sync_block_threads();
            if step + 2 < n {{ {f2} }}
            cp_async_commit();
            let st = step % {stages};
            for i in 0..32 {{ s[i] = 0.0; }}
            wgmma_m64n64k16(&mut s, &a_tile[st * 512], &a_tile[st * 512 + 2]);
            wgmma_commit();
            wgmma_wait(0);
            for i in 0..8 {{ p[i] = bf16::from_f32(s[i]); }}
            wgmma_m64n64k16_kn(&mut acc, &p, &b_tile[st * 512]);
            wgmma_commit();
        }}
        wgmma_wait(0);"
    )
}

/// `A` from registers (`p`), multiplied once.
fn once_from_registers() -> String {
    format!(
        "{} cp_async_commit(); cp_async_wait(0); sync_block_threads(); let mut p = [bf16::ONE; 8]; wgmma_m64n64k16(&mut acc, &p, &b_tile[0]); wgmma_commit();",
        fill("0")
    )
}

/// Stage 0 filled and published, no multiply yet.
fn published() -> String {
    format!(
        "{} cp_async_commit(); cp_async_wait(0); sync_block_threads();",
        fill("0")
    )
}

/// One stage, filled, published and multiplied once.
fn once() -> String {
    format!(
        "{} cp_async_commit(); cp_async_wait(0); sync_block_threads(); wgmma_m64n64k16(&mut acc, &a_tile[0], &b_tile[0]); wgmma_commit();",
        fill("0")
    )
}

#[test]
fn accepted() {
    for (what, body) in [
        ("one multiply, waited", format!("{} wgmma_wait(0);", once())),
        ("the four-stage pipeline, one group in flight", pipeline(1)),
        ("the pipeline with every group waited for", pipeline(0)),
        (
            "a second multiply into the accumulator in flight",
            format!("{} wgmma_m64n64k16(&mut acc, &a_tile[2], &b_tile[2]); wgmma_commit(); wgmma_wait(0);", once()),
        ),
        (
            "a refill after the wait and a barrier",
            format!("{} wgmma_wait(0); sync_block_threads(); {} cp_async_commit(); cp_async_wait(0);", once(), fill("0")),
        ),
        (
            "A from registers, made again after the wait",
            format!("{} wgmma_wait(0); p[0] = bf16::ZERO; out[g * 128 + t] = p[1].to_f32();", once_from_registers()),
        ),
        (
            "A from registers read by a second multiply in flight",
            format!("{} wgmma_m64n64k16(&mut acc, &p, &b_tile[2]); wgmma_commit(); wgmma_wait(0);", once_from_registers()),
        ),
        (
            "the attention's pipeline in four stages, p v in flight past the next barrier",
            registers_pipeline(4),
        ),
    ] {
        if let Err(e) = verdict("", &body) {
            panic!("{what}: rejected:\n{e}\n{body}");
        }
    }
}

#[test]
fn rejected() {
    for (what, body, words) in [
        (
            "the pipeline leaves two groups in flight: a refill of a stage being read",
            pipeline(2),
            "has finished before this write",
        ),
        (
            "the accumulator read before the wait",
            format!("{} out[0] = acc[1]; wgmma_wait(0);", once()),
            "`acc` is used while a `wgmma` may still be writing it",
        ),
        (
            "the accumulator zeroed while in flight",
            format!("{} acc[3] = 0.0; wgmma_wait(0);", once()),
            "`acc` is used while a `wgmma` may still be writing it",
        ),
        (
            "a wait that leaves the multiply in flight",
            format!("{} wgmma_wait(1); out[0] = acc[1];", once()),
            "`acc` is used while a `wgmma` may still be writing it",
        ),
        (
            "the tiles read before the other threads' copies are published",
            format!("{} cp_async_commit(); cp_async_wait(0); wgmma_m64n64k16(&mut acc, &a_tile[0], &b_tile[0]); wgmma_commit(); wgmma_wait(0);", fill("0")),
            "a_tile",
        ),
        (
            "the tiles read before the copies land",
            format!("{} cp_async_commit(); sync_block_threads(); wgmma_m64n64k16(&mut acc, &a_tile[0], &b_tile[0]); wgmma_commit(); wgmma_wait(0);", fill("0")),
            "asynchronous copy",
        ),
        (
            "a refill while the multiply is in flight, past a barrier",
            format!("{} sync_block_threads(); {} cp_async_commit(); wgmma_wait(0); cp_async_wait(0);", once(), fill("0")),
            "`wgmma` reading shared array `a_tile`",
        ),
        (
            "A's fragment rewritten while the multiply reads it",
            format!("{} p[0] = bf16::ZERO; wgmma_wait(0);", once_from_registers()),
            "`p` is used while a `wgmma` may still be reading it",
        ),
        (
            "A's fragment read while the multiply reads it",
            format!("{} out[g * 128 + t] = p[1].to_f32(); wgmma_wait(0);", once_from_registers()),
            "`p` is used while a `wgmma` may still be reading it",
        ),
        (
            "the attention's pipeline in three stages: the refill of the stage p v reads",
            registers_pipeline(3),
            "`wgmma` reading shared array `b_tile`",
        ),
        (
            "a `continue` that skips the wait: the fragment rewritten in flight",
            format!("{} let mut p = [bf16::ONE; 8]; for j in 0..n {{ for i in 0..8 {{ p[i] = bf16::from_f32(j as f32); }} wgmma_m64n64k16(&mut acc, &p, &b_tile[0]); wgmma_commit(); if j % 2 == 0 {{ continue; }} wgmma_wait(0); }} wgmma_wait(0);", published()),
            "`p` is used while a `wgmma` may still be reading it",
        ),
        (
            "a labelled `break` out of the outer loop skips its wait",
            format!("{} let p = [bf16::ONE; 8]; 'outer: for j in 0..n {{ wgmma_m64n64k16(&mut acc, &p, &b_tile[0]); wgmma_commit(); for q in 0..2 {{ if q + j == 3 {{ break 'outer; }} }} wgmma_wait(0); }}", published()),
            "`acc` is used while a `wgmma` may still be writing it",
        ),
        (
            "a `while` condition that reads the fragment in flight",
            format!("{} let mut p = [bf16::ONE; 8]; let mut r = 0u32; while p[0].to_f32() > 0.5 && r < 4 {{ wgmma_m64n64k16(&mut acc, &p, &b_tile[0]); wgmma_commit(); r += 1; }} wgmma_wait(0); p[1] = bf16::ZERO;", published()),
            "`p` is used while a `wgmma` may still be reading it",
        ),
        (
            "a multiply under a condition on the thread",
            format!("{} if t < 64 {{ wgmma_wait(0); }}", once()),
            "not reached by every thread of the block together",
        ),
    ] {
        match verdict("", &body) {
            Ok(cuda) => panic!("{what}: accepted:\n{body}\n{cuda}"),
            Err(e) => assert!(e.contains(words), "{what}: the error lacks {words:?}:\n{e}"),
        }
    }
}

#[test]
fn the_block_must_be_whole_warpgroups() {
    let body = format!("{} wgmma_wait(0);", once());
    let src = format!(
        "fn k(out: &mut [f32], x: &[[bf16; 8]]) {{\n    let a_tile = shared::<[[bf16; 8]; 2048]>();\n    let b_tile = shared::<[[bf16; 8]; 2048]>();\n    let t = thread_idx().x as usize;\n    let g = 0usize;\n    let mut acc = [0.0f32; 32];\n{body}\n    out[t] = acc[0];\n}}"
    );
    for attr in ["block = 192", "block = (32, 2, 1)", ""] {
        let err = compile_str(attr, &src, "k.rs")
            .err()
            .map(|d| d[0].full_message());
        let err = err.unwrap_or_else(|| panic!("{attr:?}: accepted"));
        assert!(
            err.contains("needs blocks of whole warpgroups"),
            "{attr:?}: {err}"
        );
    }
    assert!(compile_str("block = 256", &src, "k.rs").is_ok());
}

/// `sync = "auto"` places the wait and the barrier a refill of a tile being read needs (at the
/// refill's first copy, inside its unrolled loop: once an iteration, where one before the loop
/// would do).
#[test]
fn auto_places_the_wait_before_a_refill() {
    let body = format!(
        "{} {} cp_async_commit(); cp_async_wait(0); sync_block_threads(); wgmma_m64n64k16(&mut acc, &a_tile[0], &b_tile[0]); wgmma_commit(); wgmma_wait(0);",
        once(),
        fill("0")
    );
    let cuda = verdict("sync = \"auto\"", &body).unwrap_or_else(|e| panic!("{e}"));
    let wait = cuda.find("cuphase::wgmma_wait<0>();").expect(&cuda);
    let refill = cuda
        .match_indices("cuphase::cp_async_cg(&a_tile")
        .nth(1)
        .expect(&cuda)
        .0;
    assert!(wait < refill, "{cuda}");
    assert!(cuda[wait..refill].contains("__syncthreads();"), "{cuda}");
}

/// `wgmma.fence` goes before each multiply that may follow another access to an accumulator:
/// in both arms of an `if` (the second arm is written after the first, but runs after what
/// came before the `if`), once before a loop of multiplies, none between chained multiplies.
#[test]
fn the_fences_follow_the_accumulators_accesses() {
    let mul = "wgmma_m64n64k16(&mut acc, &a_tile[0], &b_tile[0]);";
    let body = format!(
        "{} wgmma_wait(0); acc[0] = 1.0; if n > 0 {{ {mul} }} else {{ {mul} }} {mul} for kk in 0..4 {{ wgmma_m64n64k16(&mut acc, &a_tile[kk * 2], &b_tile[kk * 2]); }} wgmma_commit(); wgmma_wait(0);",
        once()
    );
    let cuda = verdict("", &body).unwrap_or_else(|e| panic!("{e}"));
    let fences = cuda.matches("cuphase::wgmma_fence();").count();
    // `once`'s multiply, each arm's, the one after the `if` (which arm ran last is not known
    // there), none before the loop (only multiplies since).
    assert_eq!(fences, 4, "{cuda}");
    let arms = &cuda[cuda.find("if (").expect(&cuda)..];
    let else_at = arms.find("} else {").expect(&cuda);
    assert!(
        arms[..else_at].contains("cuphase::wgmma_fence();"),
        "{cuda}"
    );
    assert!(
        arms[else_at..]
            .split('}')
            .nth(1)
            .is_some_and(|r| r.contains("cuphase::wgmma_fence();")),
        "{cuda}"
    );
}

/// `A` in registers is a 16-bit `[T; 8]` fragment of the tiles' type; TF32 multiplies read it
/// from a tile.
#[test]
fn a_fragment_in_registers_is_checked() {
    for (what, body, words) in [
        (
            "a fragment of the wrong length",
            format!("{} let p = [bf16::ONE; 4]; wgmma_m64n64k16(&mut acc, &p, &b_tile[0]); wgmma_commit(); wgmma_wait(0);", fill("0")),
            "`a` in registers is a `[bf16; 8]` fragment",
        ),
        (
            "a fragment of another type than the tile",
            format!("{} let p = [f16::ONE; 8]; wgmma_m64n64k16(&mut acc, &p, &b_tile[0]); wgmma_commit(); wgmma_wait(0);", fill("0")),
            "multiplies operands of one element type",
        ),
    ] {
        match verdict("", &body) {
            Ok(cuda) => panic!("{what}: accepted:\n{body}\n{cuda}"),
            Err(e) => assert!(e.contains(words), "{what}: the error lacks {words:?}:\n{e}"),
        }
    }
    let src = "fn k(out: &mut [f32], x: &[[f32; 4]]) {\n    let b_tile = shared::<[[f32; 4]; 512]>();\n    let t = thread_idx().x as usize;\n    b_tile[t] = x[t];\n    sync_block_threads();\n    let p = [1.0f32; 8];\n    let mut acc = [0.0f32; 32];\n    wgmma_m64n64k8_tf32(&mut acc, &p, &b_tile[0]);\n    wgmma_commit();\n    wgmma_wait(0);\n    out[t] = acc[0];\n}";
    let err = compile_str("block = 128", src, "k.rs")
        .err()
        .map(|d| d[0].full_message());
    let err = err.expect("a TF32 fragment accepted");
    assert!(
        err.contains("only 16-bit inputs come from registers"),
        "{err}"
    );
}
