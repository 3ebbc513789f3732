//! The module graph of the compiler and the runtime, read from their sources: imports point
//! down the compiler's pipeline (ir <- diag <- front <- analysis <- back <- pipeline <- expand),
//! and in both crates the modules of each folder import each other without a circle.
//!
//! A reference is any `crate::a::b` or `super::a` path in code (`use` items, with their brace
//! groups, and paths written inline); test modules are left out. A folder's `mod.rs` is its
//! facade: references between a module and its own ancestors are not arrows between
//! siblings, so what is checked is the graph of the modules that sit side by side.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path: `["front", "lower", "stmt"]`; the crate root is empty.
type ModPath = Vec<String>;

/// Every `.rs` file of a crate's `src/` with its module path.
fn modules(src: &Path) -> Vec<(ModPath, PathBuf)> {
    fn walk(dir: &Path, prefix: &ModPath, out: &mut Vec<(ModPath, PathBuf)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                let mut m = prefix.clone();
                m.push(name);
                walk(&p, &m, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let mut m = prefix.clone();
                if name != "mod" && name != "lib" {
                    m.push(name);
                }
                out.push((m, p));
            }
        }
    }
    let mut out = Vec::new();
    walk(src, &Vec::new(), &mut out);
    out
}

/// The code of a file without comments, string literals and its `#[cfg(test)]` module.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = String::new();
    for line in text.lines() {
        let line = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        // String literals may hold paths of generated code (`::cuphase::..`), never ours.
        let mut in_str = false;
        let mut prev = ' ';
        for c in line.chars() {
            if c == '"' && prev != '\\' {
                in_str = !in_str;
            } else if !in_str {
                out.push(c);
            }
            prev = c;
        }
        out.push('\n');
    }
    out
}

/// The module paths a file's code refers to, each as written from `crate` (resolved against
/// `this` for `super`); a path may continue past the module into an item.
fn references(this: &ModPath, code: &str) -> Vec<ModPath> {
    let bytes: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let word_at = |i: usize, w: &str| -> bool {
        let end = i + w.len();
        bytes.len() >= end
            && bytes[i..end].iter().copied().eq(w.chars())
            && (i == 0 || !(bytes[i - 1].is_alphanumeric() || bytes[i - 1] == '_'))
    };
    let mut i = 0;
    while i < bytes.len() {
        let base: Option<(ModPath, usize)> = if word_at(i, "crate::") {
            Some((Vec::new(), i + 7))
        } else if word_at(i, "super::") {
            // `super` of `a/b.rs` (module a::b) is `a`; of `a/b/mod.rs` (module a::b) too.
            let mut p = this.clone();
            p.pop();
            let mut j = i + 7;
            while bytes[j..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
                p.pop();
                j += 7;
            }
            Some((p, j))
        } else {
            None
        };
        let Some((base, start)) = base else {
            i += 1;
            continue;
        };
        let (paths, end) = path_tree(&bytes, start);
        for p in paths {
            let mut full = base.clone();
            full.extend(p);
            out.push(full);
        }
        i = end.max(i + 1);
    }
    out
}

/// Parses `a::b::{c, d::e}` at `i`: the paths it names, and where it ends.
fn path_tree(s: &[char], mut i: usize) -> (Vec<ModPath>, usize) {
    let mut prefix = Vec::new();
    loop {
        if s.get(i) == Some(&'{') {
            let mut paths = Vec::new();
            i += 1;
            loop {
                while s.get(i).is_some_and(|c| c.is_whitespace() || *c == ',') {
                    i += 1;
                }
                if s.get(i).is_none_or(|c| *c == '}') {
                    return (
                        paths
                            .into_iter()
                            .map(|p: ModPath| prefix.iter().cloned().chain(p).collect())
                            .collect(),
                        i + 1,
                    );
                }
                let (inner, end) = path_tree(s, i);
                paths.extend(inner);
                i = end;
                // Skip `as alias`.
                while s.get(i).is_some_and(|c| *c != ',' && *c != '}') {
                    i += 1;
                }
            }
        }
        let start = i;
        while s.get(i).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
            i += 1;
        }
        if i == start {
            return (vec![prefix], i);
        }
        prefix.push(s[start..i].iter().collect());
        if s.get(i) == Some(&':') && s.get(i + 1) == Some(&':') {
            i += 2;
        } else {
            return (vec![prefix], i);
        }
    }
}

/// The arrows between sibling modules: `(parent, from, to)` where `from` and `to` are
/// children of `parent` and code in (or under) `from` refers to something in (or under) `to`.
fn sibling_arrows(src: &Path) -> BTreeSet<(ModPath, String, String)> {
    let mods = modules(src);
    let known: BTreeSet<ModPath> = mods.iter().map(|(m, _)| m.clone()).collect();
    let mut arrows = BTreeSet::new();
    for (m, file) in &mods {
        // Test modules (`tests.rs`, `*_tests.rs`) may use any stage.
        if file
            .file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with("tests.rs"))
        {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for r in references(m, &code(&text)) {
            // The longest prefix of the path that is a module.
            let target = (0..=r.len())
                .rev()
                .map(|n| r[..n].to_vec())
                .find(|p| known.contains(p))
                .unwrap_or_default();
            let common = m.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common == m.len() || common == target.len() {
                continue; // an ancestor or a descendant: the facade, not a sibling
            }
            arrows.insert((
                m[..common].to_vec(),
                m[common].clone(),
                target[common].clone(),
            ));
        }
    }
    arrows
}

/// A circle among the arrows of one folder, if there is one.
fn circle(arrows: &BTreeSet<(ModPath, String, String)>) -> Option<String> {
    let mut by_parent: BTreeMap<&ModPath, BTreeMap<&str, Vec<&str>>> = BTreeMap::new();
    for (p, a, b) in arrows {
        by_parent
            .entry(p)
            .or_default()
            .entry(a)
            .or_default()
            .push(b);
    }
    for (parent, graph) in by_parent {
        fn dfs<'a>(
            n: &'a str,
            g: &BTreeMap<&'a str, Vec<&'a str>>,
            stack: &mut Vec<&'a str>,
            done: &mut BTreeSet<&'a str>,
        ) -> Option<Vec<&'a str>> {
            if let Some(pos) = stack.iter().position(|s| *s == n) {
                let mut c = stack[pos..].to_vec();
                c.push(n);
                return Some(c);
            }
            if !done.insert(n) {
                return None;
            }
            stack.push(n);
            for m in g.get(n).into_iter().flatten() {
                if let Some(c) = dfs(m, g, stack, done) {
                    return Some(c);
                }
            }
            stack.pop();
            None
        }
        let mut done = BTreeSet::new();
        for n in graph.keys() {
            if let Some(c) = dfs(n, &graph, &mut Vec::new(), &mut done) {
                return Some(format!("in `{}`: {}", parent.join("::"), c.join(" -> ")));
            }
        }
    }
    None
}

fn src(krate: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(krate)
        .join("src")
}

#[test]
fn compiler_imports_point_down_the_pipeline() {
    let stages = [
        "ir", "math", "diag", "front", "analysis", "back", "pipeline", "expand",
    ];
    let arrows = sibling_arrows(&src("compiler"));
    let rank = |m: &str| stages.iter().position(|s| *s == m);
    let mut wrong = Vec::new();
    for (parent, from, to) in &arrows {
        if !parent.is_empty() {
            continue;
        }
        match (rank(from), rank(to)) {
            (Some(a), Some(b)) if a > b => {}
            _ => wrong.push(format!("{from} -> {to}")),
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that point up the pipeline {stages:?}: {wrong:?}"
    );
    // The check sees real arrows (it would pass vacuously if it read nothing).
    assert!(arrows.contains(&(Vec::new(), "back".into(), "ir".into())));
    assert!(arrows.contains(&(Vec::new(), "expand".into(), "pipeline".into())));
}

#[test]
fn no_import_circles_in_the_compiler_or_the_runtime() {
    for krate in ["compiler", "runtime"] {
        let arrows = sibling_arrows(&src(krate));
        assert!(!arrows.is_empty(), "no arrows read in {krate}");
        if let Some(c) = circle(&arrows) {
            panic!("an import circle in {krate} {c}");
        }
    }
}

#[test]
fn the_reader_finds_paths_in_groups_and_after_super() {
    let this: ModPath = vec!["front".into(), "lower".into(), "stmt".into()];
    let refs = references(
        &this,
        "use crate::{ir::{Block, Stmt}, diag::Ctxt};\nlet x = super::super::infer::go();",
    );
    let refs: Vec<String> = refs.iter().map(|r| r.join("::")).collect();
    assert!(refs.contains(&"ir::Block".to_string()), "{refs:?}");
    assert!(refs.contains(&"ir::Stmt".to_string()), "{refs:?}");
    assert!(refs.contains(&"diag::Ctxt".to_string()), "{refs:?}");
    assert!(refs.contains(&"front::infer::go".to_string()), "{refs:?}");
    let mut arrows = BTreeSet::new();
    arrows.insert((Vec::new(), "a".to_string(), "b".to_string()));
    assert!(circle(&arrows).is_none());
    arrows.insert((Vec::new(), "b".to_string(), "a".to_string()));
    assert!(circle(&arrows).is_some());
}
