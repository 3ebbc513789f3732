//! Snapshot tests of the generated CUDA C and of `.report()`: every `#[kernel]` in
//! `tests/in/*.rs` is compiled by the compiler library and compared with
//! `tests/out/cuda/<file>.cu` and `tests/out/report/<file>.txt`. `CUPHASE_BLESS=1`
//! rewrites the expected files (then review them with `git diff`).

use std::path::Path;

/// The CUDA C (without bounds checks) and the `.report()` of every kernel of a file.
fn outputs_of_file(path: &Path, display: &str) -> (String, String) {
    let (cuda, _, report) = all_outputs_of_file(path, display);
    (cuda, report)
}

/// The CUDA C without and with bounds checks, and the report, of every kernel of a file.
fn all_outputs_of_file(path: &Path, display: &str) -> (String, String, String) {
    let text = std::fs::read_to_string(path).unwrap();
    let file = syn::parse_file(&text).unwrap();
    let mut out = String::new();
    let mut checked = String::new();
    let mut report = String::new();
    // `#[device]` helpers of the file and its inline modules, found by name.
    fn device_fns(items: &[syn::Item], out: &mut Vec<syn::ItemFn>) {
        for item in items {
            match item {
                syn::Item::Fn(f) if f.attrs.iter().any(|a| a.path().is_ident("device")) => {
                    out.push(f.clone())
                }
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        device_fns(inner, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut devices = Vec::new();
    device_fns(&file.items, &mut devices);
    for item in file.items {
        let syn::Item::Fn(mut func) = item else {
            continue;
        };
        let Some(pos) = func.attrs.iter().position(|a| a.path().is_ident("kernel")) else {
            continue;
        };
        // Generic kernels are compiled per instance by the macro; their instances' CUDA C is
        // checked by NVRTC through `kernels::all_sources`.
        if cuphase_compiler::front::generics::has_type_params(&func) {
            continue;
        }
        let attr = func.attrs.remove(pos);
        let args = match attr.meta {
            syn::Meta::List(l) => l.tokens,
            _ => Default::default(),
        };
        let helpers =
            cuphase_compiler::front::helpers::collect_from_items(&func, &devices).unwrap();
        let consts = cuphase_compiler::front::consts::ModuleConsts::of_source(&text);
        let compiled = cuphase_compiler::compile_with(args, &func, display, &helpers, &consts)
            .unwrap_or_else(|d| {
                panic!(
                    "{display}: {}",
                    d.iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join("\n")
                )
            });
        out.push_str(&compiled.cuda);
        checked.push_str(&compiled.cuda_checked.source);
        report.push_str(&compiled.report.text);
        report.push('\n');
    }
    (out, checked, report)
}

#[test]
fn generated_cuda_matches_the_snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var("CUPHASE_BLESS").is_ok_and(|v| v == "1");
    let mut inputs: Vec<_> = std::fs::read_dir(root.join("tests/in"))
        .unwrap()
        .map(|e| e.unwrap().path())
        // The ported suites' folders are checked by NVRTC, not by snapshots.
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    inputs.sort();
    let mut mismatches = Vec::new();
    for input in &inputs {
        let stem = input.file_stem().unwrap().to_string_lossy().to_string();
        let display = format!("tests/in/{stem}.rs");
        let (cuda, checked, report) = all_outputs_of_file(input, &display);
        for (got, expected_path) in [
            (cuda, root.join(format!("tests/out/cuda/{stem}.cu"))),
            (
                checked,
                root.join(format!("tests/out/cuda-checked/{stem}.cu")),
            ),
            (report, root.join(format!("tests/out/report/{stem}.txt"))),
        ] {
            if bless {
                std::fs::write(&expected_path, &got).unwrap();
                continue;
            }
            match std::fs::read_to_string(&expected_path) {
                Ok(expected) if expected == got => {}
                Ok(_) => mismatches.push(format!(
                    "{stem}: the output differs from {}",
                    expected_path.display()
                )),
                Err(_) => {
                    mismatches.push(format!("{stem}: {} is missing", expected_path.display()))
                }
            }
        }
    }
    assert!(inputs.len() >= 7, "tests/in has the kernels");
    assert!(
        mismatches.is_empty(),
        "{}\nrun with CUPHASE_BLESS=1 and review `git diff`",
        mismatches.join("\n")
    );
}

#[test]
fn the_macro_reports_exactly_the_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (_, expected) = outputs_of_file(&root.join("tests/in/auto.rs"), "tests/in/auto.rs");
    let first = expected.split("\n\n").next().unwrap();
    assert!(first.contains("inserted"), "{first}");
    assert_eq!(
        crate::kernels::auto::reverse_auto.report().trim_end(),
        first.trim_end()
    );
}

#[test]
fn the_macro_emits_exactly_the_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (unchecked, checked, _) =
        all_outputs_of_file(&root.join("tests/in/reverse.rs"), "tests/in/reverse.rs");
    // Debug builds run the bounds-checked variant, release builds the other.
    let expected = if cfg!(debug_assertions) {
        checked
    } else {
        unchecked
    };
    assert_eq!(crate::kernels::reverse::reverse.cuda_source(), expected);
}
