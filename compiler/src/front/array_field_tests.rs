//! Array fields of user structs in the front end and the race analysis: constant and computed
//! indices, whole-array values, the C they give, and the errors for what is wrong or not
//! supported.

use crate::pipeline::compile_str_in_module;

const MODULE: &str =
    "#[repr(C)] #[derive(Clone, Copy, DeviceStruct)] struct Body { pos: [f32; 3], mass: f32 }\n\
     #[repr(C)] #[derive(Clone, Copy, DeviceStruct)] struct P2 { x: f32, y: f32 }\n\
     #[repr(C)] #[derive(Clone, Copy, DeviceStruct)] struct Poly { pts: [P2; 2], m: [[u32; 2]; 2] }\n\
     const N: usize = 4;\n\
     #[repr(C)] #[derive(Clone, Copy, DeviceStruct)] struct Hits { h: [u32; N] }";

fn compile(params: &str, body: &str) -> Result<crate::pipeline::Compiled, Vec<String>> {
    let src = format!("fn k({params}) {{\n    let t = thread_idx().x as usize;\n{body}\n}}");
    compile_str_in_module("", &src, MODULE, "k.rs")
        .map_err(|d| d.iter().map(|d| d.full_message()).collect())
}

fn cuda(params: &str, body: &str) -> String {
    compile(params, body)
        .unwrap_or_else(|e| panic!("{body}: {e:?}"))
        .cuda
}

fn errors(params: &str, body: &str) -> Vec<String> {
    match compile(params, body) {
        Ok(_) => panic!("compiled: {body}"),
        Err(e) => e,
    }
}

#[test]
fn the_c_struct_declares_array_fields() {
    let c = cuda("bs: &mut [Body]", "if t < bs.len() { bs[t].pos[1] = 2.0; }");
    assert!(
        c.contains("struct Body {\n    float pos[3];\n    float mass;\n};"),
        "{c}"
    );
    assert!(c.contains("static_assert(sizeof(Body) == 16"), "{c}");
    assert!(c.contains("bs[t].pos[1] = 2.0f;"), "{c}");
    let c = cuda(
        "ps: &mut [Poly]",
        "if t < ps.len() { ps[t].pts[1].y = 1.0; ps[t].m[1][0] = 3; }",
    );
    assert!(
        c.contains("    P2 pts[2];\n    unsigned int m[2][2];"),
        "{c}"
    );
    assert!(c.contains("ps[t].pts[1].y = 1.0f;"), "{c}");
    assert!(c.contains("ps[t].m[1][0] = 3u;"), "{c}");
}

#[test]
fn a_computed_index_is_checked_then_chooses_an_element() {
    let body =
        "if t < bs.len() { let k = ks[t] as usize; let v = bs[t].pos[k]; bs[t].pos[k] = v + 1.0; }";
    let compiled = compile("bs: &mut [Body], ks: &[u32]", body).unwrap_or_else(|e| panic!("{e:?}"));
    // With bounds checks, the index is checked as an array's is, the fault naming the field.
    let checked = &compiled.cuda_checked;
    assert!(
        checked
            .source
            .contains("if ((unsigned long long)k_1 >= 3ull) { cuphase::report("),
        "{}",
        checked.source
    );
    assert!(
        checked
            .sites
            .iter()
            .any(|s| format!("{:?}", s.kind).contains("bs[t].pos")),
        "{:?}",
        checked.sites
    );
    let c = compiled.cuda;
    assert!(
        c.contains("const float v = k_1 == 0ull ? bs[t].pos[0] : k_1 == 1ull ? bs[t].pos[1] : bs[t].pos[2];"),
        "{c}"
    );
    assert!(c.contains("} else if (k_1 == 1ull) {"), "{c}");
    assert!(c.contains("bs[t].pos[2] = value;"), "{c}");
    // A struct variable: the elements are its variables.
    let c = cuda(
        "out: &mut [f32], bs: &[Body]",
        "if t < bs.len() { let mut b = bs[t]; for d in 0..3 { b.pos[d] *= 2.0; } out[t] = b.pos[t % 3]; }",
    );
    assert!(c.contains("b_pos_2"), "{c}");
}

#[test]
fn whole_array_fields_are_values() {
    cuda(
        "out: &mut [Body], xs: &[f32]",
        "if t < out.len() {\n\
           let x = xs[t];\n\
           let mut b = Body { pos: [x, 2.0 * x, 0.0], mass: 1.0 };\n\
           let a = b.pos;\n\
           b.pos = [0.5; 3];\n\
           let mut s = 0.0f32;\n\
           for v in b.pos { s += v; }\n\
           for v in b.pos.iter() { s += *v; }\n\
           b.mass = s + a[1] + b.pos.len() as f32;\n\
           let mut c = b;\n\
           c.pos = a;\n\
           out[t] = c;\n\
           out[t].pos = b.pos;\n\
         }",
    );
    cuda(
        "out: &mut [Poly]",
        "if t < out.len() {\n\
           let k = t % 2;\n\
           let mut p = Poly { pts: [P2 { x: 1.0, y: 2.0 }, P2 { x: 3.0, y: 4.0 }], m: [[1, 2], [3, 4]] };\n\
           p.pts[k] = P2 { x: p.pts[k].y, y: p.pts[k].x };\n\
           p.m[k][1 - k] += 7;\n\
           out[t] = p;\n\
         }",
    );
}

#[test]
fn threads_writing_different_elements_of_one_field_do_not_race() {
    assert!(compile("out: &mut [Hits]", "if t < 4 { out[0].h[t] = 1; }").is_ok());
    let e = errors("out: &mut [Hits]", "if t < 8 { out[0].h[t / 2] = 1; }");
    assert!(
        e.iter().any(|m| m.contains("data race on `out.h[0]`")),
        "threads 0 and 1 both write out[0].h[0]: {e:?}"
    );
}

#[test]
fn wrong_uses_of_array_fields_are_errors() {
    let e = errors("bs: &mut [Body]", "if t < bs.len() { bs[t].pos[3] = 1.0; }");
    assert!(
        e.iter()
            .any(|m| m.contains("the len is 3 but the index is 3")),
        "{e:?}"
    );
    let e = errors(
        "bs: &mut [Body]",
        "let k: i32 = 1; if t < bs.len() { bs[t].pos[k] = 1.0; }",
    );
    assert!(
        e.iter()
            .any(|m| m.contains("an index must be an unsigned integer")),
        "{e:?}"
    );
    let e = errors(
        "bs: &mut [Body]",
        "if t < bs.len() { let b = Body { pos: [1.0, 2.0], mass: 0.0 }; bs[t] = b; }",
    );
    assert!(
        e.iter()
            .any(|m| m.contains("expected an array of 3 elements")),
        "{e:?}"
    );
    let e = errors(
        "out: &mut [f32], bs: &[Body]",
        "if t < bs.len() { out[t] = bs[t].pos; }",
    );
    assert!(e.iter().any(|m| m.contains("index it (`[0]`)")), "{e:?}");
    let e = errors(
        "out: &mut [f32], bs: &[Body]",
        "if t < bs.len() { let mut s = 0.0; for v in bs[t].pos { s += v; } out[t] = s; }",
    );
    assert!(
        e.iter().any(|m| m.contains("loop over its indices")),
        "{e:?}"
    );
    let e = errors("bs: &[Body]", "if t < bs.len() { bs[t].pos[0] = 1.0; }");
    assert!(e.iter().any(|m| m.contains("read-only")), "{e:?}");
    let e = errors(
        "out: &mut [f32], bs: &[Body]",
        "if t < bs.len() { out[t] = bs[t].mass[0]; }",
    );
    assert!(e.iter().any(|m| m.contains("not an array")), "{e:?}");
}

#[test]
fn shared_arrays_of_structs_with_array_fields_are_one_array_per_element() {
    let c = cuda(
        "out: &mut [f32]",
        "let tile = shared::<[Body; 64]>();\n\
         if t < 64 { tile[t].pos[t % 3] = 1.0; tile[t].mass = 2.0; }\n\
         sync_block_threads();\n\
         if t < 64 && t < out.len() { out[t] = tile[(t + 1) % 64].pos[1] + tile[t].mass; }",
    );
    assert!(c.contains("__shared__ float tile_pos_1[64];"), "{c}");
    assert!(
        c.contains("out[t] = tile_pos_1[index_1] + tile_mass[t];"),
        "{c}"
    );
    // Without the barrier, thread t reads what thread t + 1 writes.
    let e = errors(
        "out: &mut [f32]",
        "let tile = shared::<[Body; 64]>();\n\
         if t < 64 { tile[t].pos[1] = 1.0; }\n\
         if t < 64 && t < out.len() { out[t] = tile[(t + 1) % 64].pos[1]; }",
    );
    assert!(
        e.iter()
            .any(|m| m.contains("data race on shared array `tile.pos[1]`")
                && m.contains("the read of `tile[1].pos[1]`")),
        "{e:?}"
    );
}

#[test]
fn a_loop_variable_within_the_length_needs_no_check() {
    let checked = |body: &str| {
        compile("out: &mut [f32], bs: &[Body]", body)
            .unwrap_or_else(|e| panic!("{body}: {e:?}"))
            .cuda_checked
            .source
    };
    let c = checked(
        "if t < bs.len() && t < out.len() { let mut b = bs[t]; for d in 0..3 { b.pos[d] *= 2.0; } for d in 1..=2 { b.pos[d] += 1.0; } out[t] = b.pos[0]; }",
    );
    assert!(!c.contains(">= 3ull)"), "{c}");
    // A range past the end, or an index that is no loop variable, keeps its check.
    let c = checked(
        "if t < bs.len() && t < out.len() { let mut s = 0.0; for d in 0..4 { s += bs[t].pos[d]; } out[t] = s; }",
    );
    assert!(c.contains("if ((unsigned long long)d >= 3ull)"), "{c}");
    let c = checked("if t < bs.len() && t < out.len() { out[t] = bs[t].pos[t % 3]; }");
    assert!(c.contains(">= 3ull)"), "{c}");
    // Unchecked or not, the index is typed as one.
    let e = errors(
        "out: &mut [f32], bs: &[Body]",
        "if t < bs.len() { let mut b = bs[t]; for d in 0..3i32 { b.pos[d] = 0.0; } }",
    );
    assert!(
        e.iter()
            .any(|m| m.contains("an index must be an unsigned integer")),
        "{e:?}"
    );
}

/// A whole element of a vector slice read into a struct variable's array field (one local a
/// lane, so no row to copy into) is one load of the element and lane copies from it.
#[test]
fn a_whole_element_into_an_array_field_is_one_load() {
    let c = cuda(
        "bs: &mut [Body], x: &[[f32; 3]]",
        "let mut b = bs[t];\n    b.pos = x[t];\n    bs[t] = b;",
    );
    assert!(c.contains("const f32x3 x_elem = x[t];"), "{c}");
    assert!(c.contains("_2 = x_elem.v[2];"), "{c}");
    assert!(!c.contains("x[t].v["), "{c}");
}
