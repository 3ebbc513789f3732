//! Fuzzing of the macros' entry points (issue 16 §1): `#[kernel]`, `#[device]` and
//! `kernel_closure!` fed with mutations of every kernel in the repository and with
//! kernel-shaped Rust from a grammar-aware generator (nonsense types, huge literals, deep
//! nesting, unknown attributes, recursive helpers, generics with odd bounds).
//!
//! Each input must expand without a panic (a panic inside the compiler surfaces as its
//! "internal error" diagnostic, and the panic hook records where it was), within 10 seconds,
//! and every error must point at a place in the input (none at the call site, which for a
//! real macro would be the attribute rather than the code at fault).
//!
//! `smoke` runs 3,000 inputs in every test run. The full run:
//! `CUPHASE_FUZZ_INPUTS=1000000 cargo test --release -p cuphase-compiler --test macro_fuzz -- --ignored --nocapture`
//! (`CUPHASE_FUZZ_SEED` picks another sequence).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod gen;

use proc_macro2::{TokenStream, TokenTree};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One input: the macro it goes to and its text.
#[derive(Clone, Debug)]
pub enum Input {
    /// `#[kernel(attr)]` on `item`, with the `#[device]` helpers of its module.
    Kernel {
        attr: String,
        item: String,
        helpers: Vec<String>,
    },
    /// `#[device(attr)]` on `item`.
    Device { attr: String, item: String },
    /// `kernel_closure!(closure)`.
    Closure { closure: String },
}

impl Input {
    fn text(&self) -> String {
        match self {
            Input::Kernel {
                attr,
                item,
                helpers,
            } => format!(
                "#[kernel({attr})]\n{item}\n{}",
                helpers
                    .iter()
                    .map(|h| format!("#[device]\n{h}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
            Input::Device { attr, item } => format!("#[device({attr})]\n{item}"),
            Input::Closure { closure } => format!("kernel_closure!({closure})"),
        }
    }
}

/// What went wrong with one input (printed with `Debug`).
#[derive(Debug)]
#[allow(dead_code)]
enum Finding {
    Panic(String),
    NoSpan(String),
}

/// Text a source gets in front so that no token of it is on line 1: a span on line 1 or 0
/// is the call site (proc-macro2's fallback), not a place in the input.
const LEAD: &str = "\n\n";

fn lex(text: &str) -> Option<TokenStream> {
    TokenStream::from_str(&format!("{LEAD}{text}")).ok()
}

/// The messages of the `compile_error!`s in `out` whose span is not in the input.
fn errors_without_span(out: &TokenStream) -> Vec<String> {
    let mut found = Vec::new();
    let toks: Vec<TokenTree> = out.clone().into_iter().collect();
    for (i, t) in toks.iter().enumerate() {
        match t {
            TokenTree::Ident(id) if id == "compile_error" && id.span().start().line <= 1 => {
                let msg = toks.get(i + 2).map(|g| g.to_string()).unwrap_or_default();
                found.push(msg);
            }
            TokenTree::Group(g) => found.extend(errors_without_span(&g.stream())),
            _ => {}
        }
    }
    found
}

thread_local! {
    /// The last panic on this thread (message and place), set by the hook.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

thread_local! {
    /// Set while an input runs: its panics are recorded, not printed.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                return default(info);
            }
            let msg = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let at = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg} at {at}")));
        }));
    });
}

/// Whether rustc would hand the input to the macro: an attribute macro gets only a whole item
/// (rustc parses it first); a function-like macro gets any tokens, and an error at its call
/// site points at the invocation, so closures are checked for panics and hangs only.
fn reaches_the_macro(input: &Input) -> (bool, bool) {
    match input {
        Input::Kernel { item, .. } | Input::Device { item, .. } => {
            let whole = lex(item).is_some_and(|t| syn::parse2::<syn::Item>(t).is_ok());
            (whole, true)
        }
        Input::Closure { .. } => (true, false),
    }
}

/// Runs one input through its macro; a finding if it panicked or gave an error without a span.
fn run_one(input: &Input) -> Option<Finding> {
    let (reaches, check_spans) = reaches_the_macro(input);
    if !reaches {
        proc_macro2::extra::invalidate_current_thread_spans();
        return None;
    }
    LAST_PANIC.with(|p| *p.borrow_mut() = None);
    QUIET.with(|q| q.set(true));
    let outs: Vec<TokenStream> = std::panic::catch_unwind(|| expand(input)).unwrap_or_default();
    QUIET.with(|q| q.set(false));
    let panicked = LAST_PANIC.with(|p| p.borrow_mut().take());
    let internal = outs
        .iter()
        .any(|o| o.to_string().contains("internal error in cuphase"));
    let finding = if let Some(p) = panicked {
        Some(Finding::Panic(p))
    } else if internal {
        Some(Finding::Panic("internal error diagnostic".into()))
    } else if check_spans {
        outs.iter()
            .flat_map(errors_without_span)
            .next()
            .map(Finding::NoSpan)
    } else {
        None
    };
    // proc-macro2 keeps every source it lexed for span locations: drop them.
    proc_macro2::extra::invalidate_current_thread_spans();
    finding
}

/// The expansions of one input: the macro's own, and for a kernel with helpers the compile
/// with the helpers at hand (what the macro's fetch of them ends in).
fn expand(input: &Input) -> Vec<TokenStream> {
    let mut outs = Vec::new();
    match input {
        Input::Kernel {
            attr,
            item,
            helpers,
        } => {
            let (Some(a), Some(i)) = (lex(attr), lex(item)) else {
                return outs;
            };
            follow_cfgs(
                cuphase_compiler::expand_kernel(a.clone(), i.clone()),
                &mut outs,
            );
            if let Ok(func) = syn::parse2::<syn::ItemFn>(i) {
                let srcs: Vec<String> = helpers.iter().map(|h| format!("{LEAD}{h}")).collect();
                let refs: Vec<&str> = srcs.iter().map(String::as_str).collect();
                if let Ok(hs) = cuphase_compiler::front::helpers::collect_from_sources(&func, &refs)
                {
                    outs.push(cuphase_compiler::expand::emit(a, &func, "fuzz.rs", &hs));
                }
            }
            // Each helper goes to `#[device]` too, where it is a whole item (as rustc hands
            // only whole items to an attribute macro).
            for h in helpers {
                if let Some(h) = lex(h).filter(|t| syn::parse2::<syn::Item>(t.clone()).is_ok()) {
                    outs.push(cuphase_compiler::expand_device(TokenStream::new(), h));
                }
            }
        }
        Input::Device { attr, item } => {
            if let (Some(a), Some(i)) = (lex(attr), lex(item)) {
                follow_cfgs(cuphase_compiler::expand_device(a, i), &mut outs);
            }
        }
        Input::Closure { closure } => {
            if let Some(c) = lex(closure) {
                outs.push(cuphase_compiler::expand_kernel_closure(c));
            }
        }
    }
    outs
}

/// `first` and, where it asks rustc to decide a `#[cfg]` (`kernel_cfg!` twice, under
/// opposite predicates), the expansions that follow the first, as rustc would the one it
/// keeps.
fn follow_cfgs(first: TokenStream, outs: &mut Vec<TokenStream>) {
    let mut next = first.clone();
    outs.push(first);
    for _ in 0..8 {
        let Some(call) = cfg_call(&next) else { break };
        next = cuphase_compiler::expand_cfg(call);
        outs.push(next.clone());
    }
}

/// The input of the first `kernel_cfg! { .. }` in `out`.
fn cfg_call(out: &TokenStream) -> Option<TokenStream> {
    let toks: Vec<TokenTree> = out.clone().into_iter().collect();
    toks.windows(3).find_map(|w| match w {
        [TokenTree::Ident(id), TokenTree::Punct(p), TokenTree::Group(g)]
            if id == "kernel_cfg" && p.as_char() == '!' =>
        {
            Some(g.stream())
        }
        _ => None,
    })
}

/// Totals of a run.
#[derive(Default, Debug)]
struct Summary {
    inputs: usize,
    mutated: usize,
    generated: usize,
    slowest: Duration,
    findings: Vec<(Finding, String)>,
}

/// Runs `n` inputs from `seed` on `threads` threads (8 MiB stacks, as rustc's), stopping the
/// process with the input if one takes more than 10 seconds.
fn fuzz(n: usize, seed: u64, threads: usize) -> Summary {
    install_hook();
    let corpus = gen::Corpus::load();
    assert!(
        corpus.kernels.len() >= 100,
        "only {} kernels found in the repository",
        corpus.kernels.len()
    );
    let next = AtomicUsize::new(0);
    let mutated = AtomicUsize::new(0);
    let slowest = AtomicU64::new(0);
    let findings = Mutex::new(Vec::new());
    let done = AtomicBool::new(false);
    let started: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let current: Vec<Mutex<String>> = (0..threads).map(|_| Mutex::new(String::new())).collect();
    let epoch = Instant::now();
    std::thread::scope(|s| {
        for w in 0..threads {
            let (next, mutated, slowest, findings, corpus) =
                (&next, &mutated, &slowest, &findings, &corpus);
            let (started, current) = (&started[w], &current[w]);
            std::thread::Builder::new()
                .stack_size(8 << 20)
                .spawn_scoped(s, move || loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= n {
                        break;
                    }
                    let mut rng =
                        gen::Rng::new(seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
                    let (input, was_mutation) = corpus.input(&mut rng);
                    if was_mutation {
                        mutated.fetch_add(1, Ordering::Relaxed);
                    }
                    *current.lock().unwrap() = input.text();
                    let t0 = Instant::now();
                    started.store(epoch.elapsed().as_millis() as u64 + 1, Ordering::Relaxed);
                    let finding = run_one(&input);
                    started.store(0, Ordering::Relaxed);
                    slowest.fetch_max(t0.elapsed().as_micros() as u64, Ordering::Relaxed);
                    if let Some(f) = finding {
                        findings.lock().unwrap().push((f, input.text()));
                    }
                })
                .unwrap();
        }
        // The watchdog: an input running for more than 10 seconds is a hang.
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let now = epoch.elapsed().as_millis() as u64;
                for (w, st) in started.iter().enumerate() {
                    let t = st.load(Ordering::Relaxed);
                    if t != 0 && now.saturating_sub(t) > 10_000 {
                        eprintln!(
                            "macro fuzz: an input ran for more than 10 s (a hang):\n{}",
                            current[w].lock().unwrap()
                        );
                        std::process::exit(3);
                    }
                }
                if next.load(Ordering::Relaxed) >= n + threads
                    && started.iter().all(|s| s.load(Ordering::Relaxed) == 0)
                {
                    break;
                }
            }
        });
        // The workers end first; then the watchdog is told.
        while next.load(Ordering::Relaxed) < n + threads {
            std::thread::sleep(Duration::from_millis(50));
        }
        done.store(true, Ordering::Relaxed);
    });
    let mutated = mutated.into_inner();
    Summary {
        inputs: n,
        mutated,
        generated: n - mutated,
        slowest: Duration::from_micros(slowest.into_inner()),
        findings: findings.into_inner().unwrap(),
    }
}

fn report(s: &Summary, elapsed: Duration) {
    println!(
        "macro fuzz: {} inputs ({} mutations of repository kernels, {} generated) in {:.1} s, slowest {:.1} ms; {} findings",
        s.inputs,
        s.mutated,
        s.generated,
        elapsed.as_secs_f64(),
        s.slowest.as_secs_f64() * 1e3,
        s.findings.len()
    );
    for (f, text) in s.findings.iter().take(5) {
        println!("--- {f:?}\n{text}");
    }
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// A few thousand inputs in every test run.
#[test]
fn smoke() {
    let t0 = Instant::now();
    let s = fuzz(3_000, env_or("CUPHASE_FUZZ_SEED", 1), threads());
    report(&s, t0.elapsed());
    assert!(s.mutated > 1_000 && s.generated > 1_000, "{s:?}");
    assert!(s.findings.is_empty(), "{} findings", s.findings.len());
}

/// The full run (1,000,000 inputs unless `CUPHASE_FUZZ_INPUTS` says otherwise).
#[test]
#[ignore = "the long run: `cargo test --release -p cuphase-compiler --test macro_fuzz -- --ignored --nocapture`"]
fn long() {
    let t0 = Instant::now();
    let n = env_or("CUPHASE_FUZZ_INPUTS", 1_000_000) as usize;
    let s = fuzz(n, env_or("CUPHASE_FUZZ_SEED", 7), threads());
    report(&s, t0.elapsed());
    assert!(s.findings.is_empty(), "{} findings", s.findings.len());
}

/// Inputs the fuzzer found, each fixed: an empty statement (`;`) and an empty `where` clause
/// (valid Rust both) were rejected with an error at no place; attribute errors at the attribute's end (`sync =`, `block`,
/// `trailing_sync =`) were at the call site; a `kernel_closure!` panicked.
#[test]
fn regressions() {
    install_hook();
    let kernel = |attr: &str, item: &str| Input::Kernel {
        attr: attr.into(),
        item: item.into(),
        helpers: Vec::new(),
    };
    let empty_statement = kernel(
        "",
        "fn k(out: &mut [u32]) { let i = global_idx().x; ; if i < out.len() as u32 { out[i] = i; ; } ; }",
    );
    assert!(run_one(&empty_statement).is_none());
    let Input::Kernel { item, .. } = &empty_statement else {
        unreachable!()
    };
    let out = cuphase_compiler::expand_kernel(TokenStream::new(), lex(item).unwrap());
    assert!(!out.to_string().contains("compile_error"), "{out}");
    // An empty `where` clause (valid Rust: nothing to satisfy) was an error at no place.
    let empty_where = "fn k(out: &mut [u32]) where { if global_idx().x == 0 { out[0] = 1; } }";
    assert!(run_one(&kernel("", empty_where)).is_none());
    let out = cuphase_compiler::expand_kernel(TokenStream::new(), lex(empty_where).unwrap());
    assert!(!out.to_string().contains("compile_error"), "{out}");
    for (attr, item) in [
        ("sync =", "fn k(out: &mut [u32]) { out[0] = 1; }"),
        ("block", "fn k(out: &mut [u32]) { out[0] = 1; }"),
        (
            "block = 256, launch_bounds",
            "fn k(out: &mut [u32]) { out[0] = 1; }",
        ),
    ] {
        let input = kernel(attr, item);
        assert!(run_one(&input).is_none(), "{attr}: {:?}", run_one(&input));
        let out = cuphase_compiler::expand_kernel(lex(attr).unwrap(), lex(item).unwrap());
        assert!(
            out.to_string().contains("at the end of the attribute"),
            "{out}"
        );
    }
    // `Option::map` with no closure: an error at the empty argument list, which has no place.
    let no_closure = "fn k(out: &mut [i32], x: i32) { let i = global_idx().x; let v = Some(x).map(); out[i] = v.unwrap_or(0); }";
    assert!(run_one(&kernel("", no_closure)).is_none());
    // A closure whose body is an expression that does not survive printing and parsing
    // again as a block (`{ a } | { b }`) panicked.
    let closure = Input::Closure {
        closure: "|out: &mut [f32]| { out[0] = 1.0; } | { out[1] = 2.0; }".into(),
    };
    assert!(run_one(&closure).is_none());
    let device = Input::Device {
        attr: "trailing_sync =".into(),
        item: "fn h(x: u32) -> u32 { x }".into(),
    };
    assert!(run_one(&device).is_none());
}

/// The fuzzer finds what it looks for: a panic is seen through the hook, and an error at the
/// call site is one without a span.
#[test]
fn the_checks_can_fail() {
    install_hook();
    LAST_PANIC.with(|p| *p.borrow_mut() = None);
    QUIET.with(|q| q.set(true));
    let _ = std::panic::catch_unwind(|| panic!("planted"));
    QUIET.with(|q| q.set(false));
    assert!(LAST_PANIC
        .with(|p| p.borrow().clone())
        .unwrap()
        .contains("planted"));
    let at_call_site = syn::Error::new(proc_macro2::Span::call_site(), "x").to_compile_error();
    assert_eq!(errors_without_span(&at_call_site).len(), 1);
    let spanned: TokenStream = lex("fn k() {}").unwrap();
    let first = spanned.into_iter().next().unwrap();
    let in_input = syn::Error::new(first.span(), "x").to_compile_error();
    assert!(errors_without_span(&in_input).is_empty());
}
