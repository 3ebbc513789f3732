//! Arrays as values in the front end: copies, `[T; N]` parameters, element loops; the C they
//! give and the errors for what kernels do not support.

use crate::pipeline::compile_str_with_helpers;

fn compile(body: &str, helpers: &[&str]) -> Result<crate::pipeline::Compiled, Vec<String>> {
    let src = format!("fn k(out: &mut [i32], xs: &[i32]) {{\n{body}\n}}");
    compile_str_with_helpers("", &src, helpers, "k.rs")
        .map_err(|d| d.iter().map(|d| d.full_message()).collect())
}

const HELPERS: [&str; 2] = [
    "#[device] fn mirror(a: [f32; 3]) -> [f32; 3] { [a[2], a[1], a[0]] }",
    "#[device] fn bump(mut a: [i32; 2]) -> i32 { a[0] += 1; a[0] + a[1] }",
];

fn errors(body: &str) -> Vec<String> {
    match compile(body, &HELPERS) {
        Ok(_) => panic!("compiled: {body}"),
        Err(e) => e,
    }
}

#[test]
fn copies_are_element_stores_and_element_loops_are_index_loops() {
    let c = compile(
        "let i = global_idx().x as usize;\n let w = [1i32, 2, 3];\n let mut c = w;\n c[0] = 9;\n let mut s = 0;\n for v in w.iter() { s += *v; }\n for (j, x) in xs.iter().enumerate() { s += x * j as i32; }\n out[i] = s + c[0] + bump([s, 1]);",
        &HELPERS,
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(c.cuda.contains("c[0u] = w[0u];"), "{}", c.cuda);
    assert!(
        c.cuda
            .contains("for (unsigned long long w_index = 0ull; w_index < 3ull; ++w_index) {"),
        "{}",
        c.cuda
    );
    assert!(
        c.cuda
            .contains("for (unsigned long long j = 0ull; j < xs_len; ++j) {"),
        "{}",
        c.cuda
    );
    // The `mut` parameter is the literal's own array: the caller has no other.
    assert!(c.cuda.contains("a[0u] = s;"), "{}", c.cuda);
    assert!(
        c.cuda.contains("a[0u] = cuphase::wrapping_add(a[0u], 1);"),
        "{}",
        c.cuda
    );
}

#[test]
fn array_results_are_bound_by_let() {
    let c = compile(
        "let i = global_idx().x as usize;\n let m = mirror([1.0f32, 2.0, 3.0]);\n out[i] = m[0] as i32;",
        &HELPERS,
    );
    assert!(c.is_ok(), "{:?}", c.err());
    let e =
        errors("let i = global_idx().x as usize;\n out[i] = mirror([1.0f32, 2.0, 3.0])[0] as i32;");
    assert!(
        e.iter()
            .any(|m| m.contains("`mirror` returns an array; bind it")),
        "{e:?}"
    );
}

#[test]
fn unsupported_array_uses_are_errors_naming_the_fix() {
    let e = errors("let g = [[1i32, 2], [3, 4]];\n for r in g { out[0] = 1; }");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("one-dimensional array of known length"),
        "{e:?}"
    );

    let e = errors("let a = [1i32, 2];\n let mut b = [1i32, 2, 3];\n b = a;");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("an array is assigned an array of its own type"),
        "{e:?}"
    );

    let e = errors("let a = [1i32, 2];\n let b = [3i32, 4];\n b = a;");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("cannot assign twice to immutable variable `b`"),
        "{e:?}"
    );

    let e = errors("let a = [1i32, 2, 3];\n out[0] = bump(a);");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("is [3], but the parameter `a` is an array of dimensions [2]"),
        "{e:?}"
    );

    let e = errors("let a = [1i32, 2];\n for v in a.iter() { *v = 3; }");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("cannot assign through a `&` reference"),
        "{e:?}"
    );
}
