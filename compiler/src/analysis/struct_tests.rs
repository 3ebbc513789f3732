//! Struct fields in the race analysis: a `&mut [P]` parameter is one array per scalar field,
//! so two threads writing different fields of one element do not race, the same field does,
//! and a whole-struct write writes every field.

use crate::pipeline::compile_str_in_module;

const MODULE: &str =
    "#[repr(C)] #[derive(Clone, Copy, DeviceStruct)] struct Pair { a: u32, b: u32 }\n\
     #[repr(C)] #[derive(Clone, Copy, DeviceStruct)] struct Outer { p: Pair, w: f32 }";

fn verdict(params: &str, body: &str) -> Result<(), Vec<String>> {
    let src = format!("fn k({params}) {{\n    let t = thread_idx().x as usize;\n{body}\n}}");
    compile_str_in_module("", &src, MODULE, "k.rs")
        .map(|_| ())
        .map_err(|d| d.iter().map(|d| d.full_message()).collect())
}

#[test]
fn different_fields_of_one_element_do_not_race() {
    let body = "let k = t / 2;\n if k < out.len() { if t % 2 == 0 { out[k].a = 1; } else { out[k].b = 2; } }";
    assert_eq!(verdict("out: &mut [Pair]", body), Ok(()));
    let nested = "let k = t / 2;\n if k < out.len() { if t % 2 == 0 { out[k].p.a = 1; } else { out[k].w = 2.0; } }";
    assert_eq!(verdict("out: &mut [Outer]", nested), Ok(()));
}

#[test]
fn one_field_of_one_element_races() {
    let e = verdict(
        "out: &mut [Pair]",
        "let k = t / 2;\n if k < out.len() { out[k].a = t as u32; }",
    )
    .expect_err("threads 2k and 2k+1 both write out[k].a");
    assert!(
        e.iter()
            .any(|m| m.contains("data race on `out.a` (global memory)")),
        "{e:?}"
    );
    assert!(
        e.iter().any(|m| m.contains("the write of `out[0].a`")),
        "{e:?}"
    );
}

#[test]
fn a_whole_struct_write_writes_every_field() {
    // Thread t writes element t / 2 whole; its neighbour writes field b of it.
    let e = verdict(
        "out: &mut [Pair]",
        "let k = t / 2;\n if k < out.len() { if t % 2 == 0 { out[k] = Pair { a: 1, b: 2 }; } else { out[k].b = 3; } }",
    )
    .expect_err("threads 2k and 2k+1 both write out[k].b");
    assert!(e.iter().any(|m| m.contains("`out.b")), "{e:?}");
    // Copies between elements each thread owns are fine.
    assert_eq!(
        verdict(
            "out: &mut [Pair], inp: &[Pair]",
            "if t < out.len() { let p = inp[t]; out[t] = p; out[t].a += 1; }"
        ),
        Ok(())
    );
}

#[test]
fn struct_errors_name_the_construct() {
    for (params, body, says) in [
        ("out: &mut [Pair]", "out[t] = 1;", "expected a struct here"),
        ("out: &mut [Pair]", "let x = out[t] + 1;", "is a struct"),
        (
            "out: &mut [Pair]",
            "out[t].c = 1;",
            "no field `c` on struct `Pair`",
        ),
        (
            "out: &[Pair]",
            "let q = out[0]; out[t].a = q.a;",
            "read-only",
        ),
        (
            "out: &mut [Pair]",
            "let q = out[0]; q.a = 3; out[t] = q;",
            "not declared as mutable",
        ),
        (
            "out: &mut [Pair]",
            "out[t] = Pair { a: 1 };",
            "missing field(s) `b`",
        ),
        (
            "out: &mut [Pair]",
            "out[t] = Pair { a: 1, b: 2, a: 3 };",
            "more than once",
        ),
        (
            "out: &mut [Outer]",
            "out[t] = Pair { a: 1, b: 2 };",
            "expected `Outer`, found `Pair`",
        ),
        (
            "out: &mut [Missing]",
            "",
            "not a struct deriving `DeviceStruct`",
        ),
        (
            "out: &mut [Outer]",
            "let p = out[t].p; out[t].w = p;",
            "is a struct",
        ),
        ("out: &mut [Pair]", "let q: Pair;", "give `q` its value"),
    ] {
        let e = verdict(params, body).expect_err(body);
        assert!(e.iter().any(|m| m.contains(says)), "{body}: {e:?}");
    }
}

#[test]
fn shared_arrays_of_structs_are_checked_per_field() {
    // Thread t writes tile[t] whole, then reads its neighbour's field `a`: a barrier is needed.
    let e = verdict(
        "out: &mut [u32]",
        "let tile = shared::<[Pair; 64]>();\n if t < 64 { tile[t] = Pair { a: 1, b: 2 }; out[t] = tile[(t + 1) % 64].a; }",
    )
    .expect_err("thread t reads tile[t + 1].a, which thread t + 1 writes");
    assert!(
        e.iter().any(|m| m.contains("shared array `tile.a`")),
        "{e:?}"
    );
    // With the barrier it is fine; and field b of another element is never touched.
    assert_eq!(
        verdict(
            "out: &mut [u32]",
            "let tile = shared::<[Pair; 64]>();\n if t < 64 { tile[t].a = 1; tile[(t + 1) % 64].b = 2; }\n sync_block_threads();\n if t < 64 { out[t] = tile[t].a + tile[t].b; }",
        ),
        Ok(())
    );
    // Two-dimensional: rows per thread.
    assert_eq!(
        verdict(
            "out: &mut [u32]",
            "let tile = shared::<[[Outer; 4]; 64]>();\n if t < 64 { for j in 0..4 { tile[t][j].p.a = j as u32; } out[t] = tile[t][3].p.a; }",
        ),
        Ok(())
    );
}

const WITH_METHODS: &str =
    "#[repr(C)] #[derive(Clone, Copy, DeviceStruct)] struct V2 { x: f32, y: f32 }\n\
     #[device] impl V2 {\n\
         fn new(x: f32, y: f32) -> Self { V2 { x, y } }\n\
         fn dot(self, o: V2) -> f32 { self.x * o.x + self.y * o.y }\n\
         fn scaled(&self, k: f32) -> V2 { Self::new(self.x * k, self.y * k) }\n\
         fn len2(self) -> f32 { self.dot(self) }\n\
         fn grow(&mut self) { self.x += 1.0; }\n\
     }";

/// Compiles `src` in a module of `WITH_METHODS`, its methods fetched as the macro fetches
/// them (each a helper under its alias).
fn with_methods(src: &str) -> Result<crate::pipeline::Compiled, Vec<String>> {
    use crate::front::{consts::ModuleConsts, helpers, methods};
    let file = syn::parse_file(WITH_METHODS).expect("module");
    let mut hs = helpers::Helpers::default();
    for item in &file.items {
        if let syn::Item::Impl(i) = item {
            let syn::Type::Path(tp) = &*i.self_ty else {
                continue;
            };
            let ty = tp.path.get_ident().expect("a plain type").clone();
            for f in &i.items {
                if let syn::ImplItem::Fn(f) = f {
                    let func = methods::as_helper(&ty, f).expect("a method");
                    let options = helpers::parse_device_attr(proc_macro2::TokenStream::new())
                        .expect("no options");
                    hs.add(
                        methods::alias(&ty.to_string(), &f.sig.ident.to_string()),
                        options,
                        func,
                    );
                }
            }
        }
    }
    let func: syn::ItemFn = syn::parse_str(src).expect("kernel");
    crate::pipeline::compile_with(
        proc_macro2::TokenStream::new(),
        &func,
        "k.rs",
        &hs,
        &ModuleConsts::of_source(WITH_METHODS),
    )
    .map_err(|d| d.iter().map(|d| d.full_message()).collect())
}

#[test]
fn methods_of_device_impl_blocks_are_inlined_helpers() {
    let src = "fn k(out: &mut [f32], vs: &[V2]) {\n    let i = thread_idx().x as usize;\n    let v = vs[i].scaled(2.0);\n    let w = V2::new(1.0, -1.0);\n    out[i] = v.dot(w) + w.len2() + vs[i].len2();\n}";
    let c = with_methods(src).unwrap_or_else(|e| panic!("{e:?}"));
    // No call is left: every method is inlined.
    assert!(!c.cuda.contains("dot("), "{}", c.cuda);
    assert!(c.cuda.contains("vs[i].x"), "{}", c.cuda);
}

#[test]
fn a_mut_self_method_changes_the_callers_variable() {
    let src = "fn k(vs: &mut [V2]) {\n    let i = thread_idx().x as usize;\n    let mut v = vs[i];\n    v.grow();\n    v.grow();\n    vs[i] = v;\n}";
    let c = with_methods(src).unwrap_or_else(|e| panic!("{e:?}"));
    // The method's `self.x += 1.0` is the variable's own field, twice.
    assert_eq!(c.cuda.matches("v_x += 1.0f;").count(), 2, "{}", c.cuda);
    let m = with_methods(
        "fn k(vs: &mut [V2]) {\n    let i = thread_idx().x as usize;\n    vs[i].grow();\n}",
    )
    .map(|_| ())
    .expect_err("an element is no struct variable");
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].contains("a `&mut self` method changes a struct variable"),
        "{m:?}"
    );
    let m = with_methods(
        "fn k(vs: &mut [V2]) {\n    let i = thread_idx().x as usize;\n    let v = vs[i];\n    v.grow();\n}",
    )
    .map(|_| ())
    .expect_err("an immutable variable");
    assert!(
        m.iter().any(|m| m.contains("cannot borrow `v` as mutable")),
        "{m:?}"
    );
}
