//! `Option` values in the front end: the C they give, and the errors for what kernels do not
//! support (each once, at its span).

use crate::pipeline::compile_str;

fn compile(body: &str) -> Result<crate::pipeline::Compiled, Vec<String>> {
    let src = format!(
        "fn k(out: &mut [i32], xs: &[i32]) {{\n    let i = global_idx().x as usize;\n{body}\n}}"
    );
    compile_str("", &src, "k.rs").map_err(|d| d.iter().map(|d| d.full_message()).collect())
}

fn errors(body: &str) -> Vec<String> {
    match compile(body) {
        Ok(_) => panic!("compiled: {body}"),
        Err(e) => e,
    }
}

#[test]
fn an_option_is_a_flag_and_a_value_named_as_the_source_names_it() {
    let c = compile(
        "let t = xs[i];\n let v = if t > 3 { Some(t) } else { None };\n out[i] = v.unwrap_or(-1);",
    )
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(c.cuda.contains("bool v_some;"), "{}", c.cuda);
    assert!(c.cuda.contains("v_some = true;"), "{}", c.cuda);
    assert!(c.cuda.contains("v = 0;"), "{}", c.cuda);
    assert!(c.cuda.contains("v_some ? v : -1"), "{}", c.cuda);
    assert!(!c.cuda.contains("tmp"), "{}", c.cuda);
}

#[test]
fn checked_arithmetic_is_a_helper_of_the_operand_type() {
    let c = compile("let a = xs[i].checked_add(7);\n out[i] = a.unwrap_or(0);")
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(
        c.cuda
            .contains("__device__ __forceinline__ bool checked_add_ok(int a, int b)"),
        "{}",
        c.cuda
    );
    // The value is the wrapping sum: no fault site, no second helper.
    assert!(!c.cuda.contains("checked_add_or_zero"), "{}", c.cuda);
    let d = compile("let a = xs[i].checked_div(xs[0]);\n out[i] = a.unwrap_or(0);")
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(d.cuda.contains("checked_div_or_zero("), "{}", d.cuda);
    assert!(!d.cuda.contains("cuphase_faults"), "{}", d.cuda);
}

#[test]
fn unsupported_uses_are_one_error_each() {
    let e = errors("let v = xs[i].checked_add(1);\n out[i] = v;");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("this is an `Option`, not a scalar"), "{e:?}");

    let e = errors("out[i] = match xs[i].checked_mul(3) { Some(0) => 1, None => 2 };");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("does not cover every value"), "{e:?}");

    let e = errors(
        "let v = Some(xs[i]).map(|y| { if y > 3 { return 0; } y });\n out[i] = v.unwrap_or(0);",
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("`return` in the closure of `map`"), "{e:?}");

    let e = errors("let v: Option<[i32; 2]> = None;");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("`Option` of a scalar type"), "{e:?}");

    let e = errors("let v = Some(xs[i]);\n v = None;\n out[i] = v.unwrap_or(1);");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("cannot assign twice to immutable variable `v`"),
        "{e:?}"
    );

    let e = errors("if let 3 = xs[i] { out[i] = 1; }");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("`if let` on an `Option`"), "{e:?}");
}

#[test]
fn a_deferred_option_may_be_assigned_on_each_path() {
    let c = compile(
        "let o: Option<i32>;\n if xs[i] > 0 { o = Some(xs[i]); } else { o = None; }\n out[i] = o.map_or(0, |v| v + 1);",
    );
    assert!(c.is_ok(), "{:?}", c.err());
}
