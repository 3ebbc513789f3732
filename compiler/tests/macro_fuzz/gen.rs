//! The fuzzer's inputs: the repository's kernels (the corpus), token-level mutations of them,
//! and a generator of kernel-shaped Rust.

use super::Input;
use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::ToTokens;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use syn::visit::Visit;

/// A small deterministic generator (xorshift64*): the inputs of a seed are always the same.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut r = Rng(seed | 1);
        for _ in 0..4 {
            r.next();
        }
        r
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A number below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A kernel found in the repository.
pub struct Kernel {
    attr: String,
    item: String,
    helpers: Vec<String>,
}

/// Every kernel, helper and kernel closure of the repository.
pub struct Corpus {
    pub kernels: Vec<Kernel>,
    closures: Vec<String>,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The `#[kernel]`s, `#[device]`s and `kernel_closure!`s of one file.
#[derive(Default)]
struct Found {
    kernels: Vec<(String, syn::ItemFn)>,
    helpers: Vec<String>,
    closures: Vec<String>,
}

impl<'a> Visit<'a> for Found {
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        let mut plain = f.clone();
        plain
            .attrs
            .retain(|a| !a.path().is_ident("kernel") && !a.path().is_ident("device"));
        for a in &f.attrs {
            if a.path().is_ident("kernel") {
                let attr = match &a.meta {
                    syn::Meta::List(l) => l.tokens.to_string(),
                    _ => String::new(),
                };
                self.kernels.push((attr, plain.clone()));
            } else if a.path().is_ident("device") {
                self.helpers.push(plain.to_token_stream().to_string());
            }
        }
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        if m.path
            .segments
            .last()
            .is_some_and(|s| s.ident == "kernel_closure")
        {
            self.closures.push(m.tokens.to_string());
        }
    }
}

impl Corpus {
    /// Reads the workspace: tests, examples, benches, the block library, the compile-fail
    /// cases and the GPUVerify translations.
    pub fn load() -> Corpus {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        for d in [
            "tests",
            "examples",
            "benches",
            "blocks/src",
            "ui-tests",
            "src",
        ] {
            rust_files(&root.join(d), &mut files);
        }
        files.sort();
        let mut corpus = Corpus {
            kernels: Vec::new(),
            closures: Vec::new(),
        };
        for f in files {
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            let Ok(file) = syn::parse_file(&text) else {
                continue;
            };
            let mut found = Found::default();
            found.visit_file(&file);
            for (attr, item) in found.kernels {
                corpus.kernels.push(Kernel {
                    attr,
                    item: item.to_token_stream().to_string(),
                    helpers: found.helpers.clone(),
                });
            }
            corpus.closures.extend(found.closures);
        }
        let cases = root.join("compiler/src/analysis/gpuverify/cases.txt");
        if let Ok(text) = std::fs::read_to_string(cases) {
            corpus.kernels.extend(gpuverify_cases(&text));
        }
        corpus
    }

    /// The next input: half mutations of a repository kernel, half generated.
    pub fn input(&self, rng: &mut Rng) -> (Input, bool) {
        if rng.chance(50) {
            let k = rng.pick(&self.kernels);
            let r = rng.below(100);
            let input = if r < 8 && !k.helpers.is_empty() {
                let attr = *rng.pick(&["", "trailing_sync = false"]);
                let item = rng.pick(&k.helpers).clone();
                let n = 1 + rng.below(3);
                Input::Device {
                    attr: mutate_text(attr, rng, 1),
                    item: mutate_text(item, rng, n),
                }
            } else if r < 14 && !self.closures.is_empty() {
                let c = rng.pick(&self.closures).clone();
                let n = 1 + rng.below(3);
                Input::Closure {
                    closure: mutate_text(c, rng, n),
                }
            } else {
                let helpers = if rng.chance(30) {
                    k.helpers.iter().map(|h| mutate_text(h, rng, 1)).collect()
                } else {
                    k.helpers.clone()
                };
                let attr = if rng.chance(15) {
                    mutate_text(&k.attr, rng, 1)
                } else {
                    k.attr.clone()
                };
                let n = 1 + rng.below(4);
                Input::Kernel {
                    attr,
                    item: mutate_text(&k.item, rng, n),
                    helpers,
                }
            };
            (input, true)
        } else {
            (generate(rng), false)
        }
    }
}

/// The expressible kernels of `cases.txt` (`attr:` line, `---`, the kernel, `--- helper`s).
fn gpuverify_cases(text: &str) -> Vec<Kernel> {
    let mut out = Vec::new();
    for case in text.split("\n== ").skip(1) {
        let attr = case
            .lines()
            .find_map(|l| l.strip_prefix("attr: "))
            .unwrap_or("")
            .to_string();
        let mut parts = case.split("\n---");
        let _head = parts.next();
        let mut item = None;
        let mut helpers = Vec::new();
        for p in parts {
            if let Some(h) = p.strip_prefix(" helper\n") {
                helpers.push(h.replace("#[device]", ""));
            } else if item.is_none() {
                item = Some(p.trim_start_matches('\n').to_string());
            }
        }
        if let Some(item) = item {
            out.push(Kernel {
                attr,
                item,
                helpers,
            });
        }
    }
    out
}

/// Tokens a mutation inserts or puts in place of another.
const SNIPPETS: &[&str] = &[
    "sync_block_threads();",
    "sync_warp();",
    "return;",
    "return 1;",
    "#[cfg(any())]",
    "#[cfg(all())]",
    "#[cfg_attr(all(), allow(unused))]",
    "#[foo]",
    "#[kernel]",
    "#[device]",
    "#[inline(always)]",
    "#[allow(unused)]",
    "loop {}",
    "loop { break; }",
    "while true {}",
    "'a: loop { break 'a; }",
    "break 'nowhere;",
    "continue;",
    "unsafe { sync_block_threads(); }",
    "as u8",
    "as i128",
    "as f16",
    "as *const f32",
    "..",
    "..=",
    "::<f32>",
    "::<>",
    "where T: Copy",
    "shared::<[f32; 4294967295]>()",
    "shared::<[f32; 1073741824]>()",
    "shared::<[[u8; 0]; 0]>()",
    "shared::<f32>()",
    "shared_slice::<bool>()",
    "if thread_idx().x < 3 { sync_block_threads(); }",
    "if thread_idx().x == 0 { return; }",
    "let x = x;",
    "let (a, b) = (1, 2);",
    "let _ = || 1;",
    "1e39f32",
    "1e400",
    "18446744073709551616",
    "340282366920938463463374607431768211456u128",
    "0xffff_ffff_ffff_ffff_ffff",
    "-2147483648i32",
    "0u8 - 1",
    "i32::MIN / -1",
    "1 << 200",
    "x[u64::MAX]",
    "'c'",
    "\"text\"",
    "b'x'",
    "b\"bytes\"",
    "()",
    "[]",
    "[0; 0]",
    "[0u32; 100000]",
    "Self",
    "self",
    "super::k()",
    "crate::nothing()",
    "k()",
    "h(h(h(1)))",
    "println!(\"{} {:?} {:>999999999}\", 1, 2.0, 3)",
    "print!(\"{\")",
    "assert!(false, \"{}\")",
    "panic!()",
    "unreachable!()",
    "todo!()",
    "vec![1, 2]",
    "format!(\"x\")",
    "async { 1 }",
    "await",
    "yield",
    "box",
    "dyn Fn()",
    "impl Copy",
    "&&&mut",
    "&'static",
    "?",
    "!",
    "warp_shuffle(1.0, 99)",
    "warp_ballot(thread_idx().x > 3)",
    "uniform_load(&tile[thread_idx().x])",
    "unsafe { assume_uniform(thread_idx().x) }",
    "global_idx().w",
    "thread_idx().x.y",
    "block_dim()",
    "threads_in_block(0..0)",
    "threads_in_grid(0..u32::MAX).step_by(0)",
    "f32::NAN",
    "u32::MAX",
    "f64::EPSILON.sqrt().powi(-1000)",
    "x.atomic_add(0, 1)",
    "match 1 { 0 => 1, _ => 2 }",
    "match x { }",
    "struct S;",
    "impl S {}",
    "mod m {}",
    "use std::mem;",
    "const C: u32 = 1 / 0;",
    "static S: u32 = 0;",
    "fn inner() {}",
    "macro_rules! m { () => {} }",
    "m!()",
    "std::process::exit(0)",
];

/// Identifiers a mutation puts in place of another.
const IDENTS: &[&str] = &[
    "f32",
    "f64",
    "u8",
    "i8",
    "u16",
    "i16",
    "u32",
    "i32",
    "u64",
    "i64",
    "u128",
    "i128",
    "usize",
    "isize",
    "bool",
    "char",
    "str",
    "f16",
    "bf16",
    "Vec",
    "Option",
    "Some",
    "None",
    "Box",
    "String",
    "Self",
    "T",
    "U",
    "N",
    "Num",
    "Float",
    "Int",
    "Scalar",
    "Iterator",
    "Copy",
    "thread_idx",
    "block_idx",
    "block_dim",
    "grid_dim",
    "global_idx",
    "lane_id",
    "shared",
    "shared_slice",
    "sync_block_threads",
    "sync_warp",
    "uniform_load",
    "warp_shuffle_xor",
    "threads_in_block",
    "len",
    "sqrt",
    "exp",
    "powi",
    "mul_add",
    "min",
    "max",
    "abs",
    "wrapping_add",
    "checked_add",
    "count_ones",
    "leading_zeros",
    "to_bits",
    "from_bits",
    "is_nan",
    "clamp",
    "out",
    "input",
    "tile",
    "x",
    "i",
    "t",
    "k",
    "h",
    "mut",
    "ref",
    "let",
    "if",
    "else",
    "while",
    "for",
    "loop",
    "in",
    "match",
    "return",
    "break",
    "continue",
    "fn",
    "unsafe",
    "as",
    "move",
    "static",
    "const",
    "type",
    "where",
    "impl",
    "dyn",
    "super",
    "crate",
];

const PUNCTS: &[&str] = &[
    "+", "-", "*", "/", "%", "^", "!", "&", "|", "&&", "||", "<<", ">>", "+=", "-=", "*=", "/=",
    "=", "==", "!=", "<", ">", "<=", ">=", "@", ".", ",", ";", ":", "::", "->", "=>", "#", "$",
    "?", "~", "'",
];

const LITERALS: &[&str] = &[
    "0",
    "1",
    "2",
    "7",
    "31",
    "32",
    "255",
    "256",
    "1024",
    "65536",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "1e30",
    "0.5",
    "-1",
    "1u8",
    "300u8",
    "1.0f32",
    "1e39f32",
    "2f64",
    "0b1021",
    "0o9",
    "1_000_000_000_000",
    "1usize",
    "5i128",
    "'x'",
    "\"s\"",
    "true",
    "false",
];

fn tokens(text: impl AsRef<str>) -> TokenStream {
    TokenStream::from_str(text.as_ref()).unwrap_or_default()
}

/// `text` with `count` token-level mutations; the text itself if it does not lex.
pub fn mutate_text(text: impl AsRef<str>, rng: &mut Rng, count: usize) -> String {
    let text = text.as_ref();
    let Ok(mut ts) = TokenStream::from_str(text) else {
        return text.to_string();
    };
    for _ in 0..count {
        ts = mutate(ts, rng);
    }
    ts.to_string()
}

/// One mutation somewhere in the tree: in the stream itself or, recursively, in a group.
fn mutate(ts: TokenStream, rng: &mut Rng) -> TokenStream {
    let mut v: Vec<TokenTree> = ts.into_iter().collect();
    // Descend into a group with some probability, else mutate at this level.
    let groups: Vec<usize> = (0..v.len())
        .filter(|i| matches!(v[*i], TokenTree::Group(_)))
        .collect();
    if !groups.is_empty() && rng.chance(70) {
        let i = *rng.pick(&groups);
        if let TokenTree::Group(g) = &v[i] {
            let mut ng = Group::new(g.delimiter(), mutate(g.stream(), rng));
            ng.set_span(g.span());
            v[i] = TokenTree::Group(ng);
        }
        return v.into_iter().collect();
    }
    let at = if v.is_empty() { 0 } else { rng.below(v.len()) };
    match rng.below(11) {
        0 if !v.is_empty() => {
            v.remove(at);
        }
        1 if !v.is_empty() => {
            let t = v[at].clone();
            v.insert(at, t);
        }
        2 if v.len() > 1 => {
            let j = (at + 1) % v.len();
            v.swap(at, j);
        }
        3 => {
            let t = tokens(rng.pick(IDENTS));
            splice(&mut v, at, t, rng.chance(50));
        }
        4 => {
            let t = tokens(rng.pick(LITERALS));
            splice(&mut v, at, t, rng.chance(50));
        }
        5 => {
            let t = tokens(rng.pick(PUNCTS));
            splice(&mut v, at, t, rng.chance(50));
        }
        6 | 7 => {
            let t = tokens(rng.pick(SNIPPETS));
            splice(&mut v, at, t, rng.chance(30));
        }
        8 if !v.is_empty() => {
            // Deep nesting around one token.
            let most = if rng.chance(10) { 300 } else { 20 };
            let depth = 1 + rng.below(most);
            let delim = *rng.pick(&[Delimiter::Parenthesis, Delimiter::Brace, Delimiter::Bracket]);
            let mut t = TokenStream::from(v[at].clone());
            for _ in 0..depth {
                t = TokenTree::Group(Group::new(delim, t)).into();
            }
            splice(&mut v, at, t, true);
        }
        9 if !v.is_empty() => {
            if let TokenTree::Group(g) = &v[at] {
                let delim = *rng.pick(&[
                    Delimiter::Parenthesis,
                    Delimiter::Brace,
                    Delimiter::Bracket,
                    Delimiter::None,
                ]);
                v[at] = TokenTree::Group(Group::new(delim, g.stream()));
            } else {
                v.truncate(at);
            }
        }
        _ => {
            // A copy of another stretch of this stream.
            if !v.is_empty() {
                let from = rng.below(v.len());
                let len = 1 + rng.below(8.min(v.len() - from));
                let piece: Vec<TokenTree> = v[from..from + len].to_vec();
                let at = rng.below(v.len() + 1);
                for (k, t) in piece.into_iter().enumerate() {
                    v.insert(at + k, t);
                }
            }
        }
    }
    v.into_iter().collect()
}

/// Puts `t` at `at`: in place of the token there, or before it.
fn splice(v: &mut Vec<TokenTree>, at: usize, t: TokenStream, replace: bool) {
    if replace && at < v.len() {
        v.remove(at);
    }
    let at = at.min(v.len());
    for (k, tt) in t.into_iter().enumerate() {
        v.insert(at + k, tt);
    }
}

// ---- the generator of kernel-shaped Rust ----

const PARAM_TYPES: &[&str] = &[
    "&mut [f32]",
    "&[f32]",
    "&mut [u32]",
    "&[i32]",
    "&mut [f64]",
    "&[u8]",
    "&mut [bool]",
    "&[[f32; 4]]",
    "&mut [[f32; 4]]",
    "&mut [half::f16]",
    "f32",
    "u32",
    "i64",
    "usize",
    "bool",
    "u8",
    "f64",
    "Vec<f32>",
    "&&[f32]",
    "&mut &mut [f32]",
    "[f32; 4]",
    "&[f32; 1 << 40]",
    "impl Copy",
    "dyn Fn()",
    "Box<[f32]>",
    "Option<u32>",
    "&str",
    "String",
    "*mut f32",
    "()",
    "!",
    "T",
    "&mut [T]",
    "Foo",
    "&[Foo]",
    "(u32, u32)",
    "fn(u32) -> u32",
    "&'static [f32]",
];

const GENERICS: &[&str] = &[
    "",
    "",
    "",
    "<T: Float>",
    "<T: Num>",
    "<T: Int, U: Float>",
    "<T: Iterator>",
    "<T: Num + Copy>",
    "<T>",
    "<'a>",
    "<T: Float = f32>",
    "<const N: u32>",
    "<const N: usize, const M: bool>",
    "<const N: [u8; 2]>",
    "<const N: u32, T: Float>",
    "<T: ?Sized>",
    "<T: Scalar> where T: Copy",
];

const ATTRS: &[&str] = &[
    "",
    "",
    "sync = \"auto\"",
    "sync = \"check\"",
    "sync = \"none\"",
    "sync = 3",
    "block = 256",
    "block = (16, 16)",
    "block = (0, 0)",
    "block = (4294967295, 2)",
    "block = 2048",
    "block = (32, 8, 4)",
    "launch_bounds = 99999999999999999999",
    "launch_bounds = 128, min_blocks_per_sm = 2",
    "bounds_checks = maybe",
    "bounds_checks = false",
    "fast_math",
    "fast_math = true",
    "instances(N = [1, 2, 3])",
    "instances(N = [])",
    "instances(M = [4])",
    "foo",
    "block = 256, sync = \"auto\"",
    "sync = \"auto\", sync = \"check\"",
];

const SCALARS: &[&str] = &[
    "f32", "f64", "u32", "i32", "u64", "i64", "u8", "bool", "usize", "u16",
];

const HELPERS: &[&[&str]] = &[
    &["fn h(x: u32) -> u32 { h(x) + 1 }"],
    &["fn h(x: u32) -> u32 { g(x) }", "fn g(x: u32) -> u32 { h(x) }"],
    &["fn h<T: Iterator>(x: T) -> T { x }"],
    &["fn h(x: u32) -> u32 { sync_block_threads(); x }"],
    &["fn h(tile: &mut [f32; 256], x: f32) -> f32 { tile[thread_idx().x] = x; sync_block_threads(); tile[0] }"],
    &["fn h(x: &mut u32) { *x += 1; }"],
    &["fn h<const N: usize>(a: &[f32; N]) -> f32 { a[N - 1] }"],
    &["fn h(x: u32) { return x; }"],
    &["fn h() -> ! { loop {} }"],
    &["fn h(self) -> u32 { 1 }"],
    &["unsafe fn h(x: u32) -> u32 { x }"],
    &["pub(crate) fn h(x: u32) -> u32 where u32: Copy { x }"],
    &["fn h(..) {}"],
    &["async fn h() {}"],
];

/// A kernel (or helper, or closure) of random shape.
pub fn generate(rng: &mut Rng) -> Input {
    let params: Vec<String> = (0..rng.below(5))
        .map(|i| format!("p{i}: {}", rng.pick(PARAM_TYPES)))
        .collect();
    let depth = if rng.chance(10) { 40 } else { 4 };
    let n = 1 + rng.below(6);
    let body = block(rng, depth, n);
    let ret = if rng.chance(10) {
        format!(" -> {}", rng.pick(SCALARS))
    } else {
        String::new()
    };
    let params = format!("out: &mut [f32], {}", params.join(", "));
    match rng.below(10) {
        0 => Input::Device {
            attr: rng
                .pick(&["", "trailing_sync = false", "trailing_sync = 1", "x"])
                .to_string(),
            item: format!("fn h{}({params}){ret} {body}", rng.pick(GENERICS)),
        },
        1 => Input::Closure {
            closure: format!(
                "{}|{params}| {body}",
                if rng.chance(30) { "move " } else { "" }
            ),
        },
        _ => Input::Kernel {
            attr: rng.pick(ATTRS).to_string(),
            item: format!(
                "{}fn k{}({params}){ret} {body}",
                rng.pick(&[
                    "",
                    "",
                    "pub ",
                    "unsafe ",
                    "const ",
                    "async ",
                    "extern \"C\" "
                ]),
                rng.pick(GENERICS)
            ),
            helpers: if rng.chance(40) {
                rng.pick(HELPERS).iter().map(|h| h.to_string()).collect()
            } else {
                Vec::new()
            },
        },
    }
}

fn block(rng: &mut Rng, depth: usize, n: usize) -> String {
    let stmts: Vec<String> = (0..n).map(|_| stmt(rng, depth)).collect();
    format!("{{ {} }}", stmts.join(" "))
}

fn stmt(rng: &mut Rng, depth: usize) -> String {
    let d = depth.saturating_sub(1);
    let inner = |rng: &mut Rng| {
        if d == 0 {
            "sync_block_threads();".to_string()
        } else {
            let n = 1 + rng.below(3);
            block(rng, d, n)
        }
    };
    match rng.below(if depth == 0 { 6 } else { 16 }) {
        0 => format!("let mut v{} = {};", rng.below(4), expr(rng, 3)),
        1 => format!(
            "let v{}: {} = {};",
            rng.below(4),
            rng.pick(SCALARS),
            expr(rng, 3)
        ),
        2 => format!("out[{}] = {} as f32;", expr(rng, 2), expr(rng, 3)),
        3 => "sync_block_threads();".to_string(),
        4 => format!(
            "let s{} = shared::<[{}; {}]>();",
            rng.below(3),
            rng.pick(SCALARS),
            rng.pick(&["256", "0", "1", "4294967296", "N", "1 << 31", "64 * 64"])
        ),
        5 => format!("s{}[{}] = {};", rng.below(3), expr(rng, 2), expr(rng, 2)),
        6 => format!("if {} {} else {}", cond(rng), inner(rng), inner(rng)),
        7 => format!("while {} {}", cond(rng), inner(rng)),
        8 => format!("for j in 0..{} {}", expr(rng, 2), inner(rng)),
        9 => format!(
            "'l{0}: loop {{ if {1} {{ break 'l{0}; }} {2} }}",
            d,
            cond(rng),
            inner(rng)
        ),
        10 => format!("{} {}", rng.pick(SNIPPETS), inner(rng)),
        11 => format!(
            "#[{}] {}",
            rng.pick(&[
                "cfg(any())",
                "cfg(all())",
                "allow(unused)",
                "foo",
                "inline",
                "kernel",
                "device",
                "cfg_attr(all(), allow(x))"
            ]),
            stmt(rng, d)
        ),
        12 => format!(
            "match {} {{ 0 => {}, _ => {} }}",
            expr(rng, 2),
            inner(rng),
            inner(rng)
        ),
        13 => format!(
            "let c = |a: u32| {{ a {} {} }}; out[0] = c(1) as f32;",
            rng.pick(PUNCTS),
            expr(rng, 1)
        ),
        14 => format!("unsafe {}", inner(rng)),
        _ => format!("h({});", expr(rng, 2)),
    }
}

fn cond(rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => "thread_idx().x < 16".to_string(),
        1 => "block_idx().x == 0".to_string(),
        2 => format!("{} > {}", expr(rng, 2), expr(rng, 2)),
        3 => "true".to_string(),
        4 => "out.len() > 3".to_string(),
        _ => format!("{} == 0", expr(rng, 2)),
    }
}

fn expr(rng: &mut Rng, depth: usize) -> String {
    if depth == 0 || rng.chance(30) {
        return match rng.below(8) {
            0..=1 => rng.pick(LITERALS).to_string(),
            2 => "thread_idx().x".to_string(),
            3 => format!("v{}", rng.below(4)),
            4 => "global_idx().x".to_string(),
            5 => "out.len()".to_string(),
            6 => format!("p{}", rng.below(4)),
            _ => rng.pick(IDENTS).to_string(),
        };
    }
    let d = depth - 1;
    match rng.below(9) {
        0..=2 => format!("({} {} {})", expr(rng, d), rng.pick(PUNCTS), expr(rng, d)),
        3 => format!("{} as {}", expr(rng, d), rng.pick(SCALARS)),
        4 => format!("{}.{}()", expr(rng, d), rng.pick(IDENTS)),
        5 => format!("out[{}]", expr(rng, d)),
        6 => format!(
            "if {} {{ {} }} else {{ {} }}",
            cond(rng),
            expr(rng, d),
            expr(rng, d)
        ),
        7 => format!(
            "{}({})",
            rng.pick(&[
                "h",
                "g",
                "warp_shuffle_xor",
                "uniform_load",
                "f32::max",
                "u32::pow"
            ]),
            expr(rng, d)
        ),
        _ => format!("-{}", expr(rng, d)),
    }
}
