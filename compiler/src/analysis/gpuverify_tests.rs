//! GPUVerify's CUDA test suite as a verdict table (issue 11 §4).
//!
//! GPUVerify (github:mc-imperial/gpuverify, commit 49219770) ships 183 CUDA kernels under
//! `testsuite/CUDA/`, each labelled `//pass`, `//xfail:NOT_ALL_VERIFIED` (a race, a barrier
//! divergence, an assertion or another verification failure) or a tool error. Every kernel the
//! kernel language can express is translated by hand into `gpuverify/cases.txt` (the same
//! accesses and barriers; no CUDA text is copied) and compiled here; the verdict is compared with
//! the label:
//!
//! - `pass` expects `Ok`; a rejection is a false positive and must be listed in [`KNOWN`] with
//!   its reason: an imprecision of the analysis, or a difference by design (GPUVerify
//!   tolerates benign write-write races and, with `--warp-sync`, runs warps in lock-step);
//! - a race expects an error that names a race ("data race", "cannot prove that two threads
//!   never meet"), a divergence one that says a barrier "is not reached by every thread", a
//!   write to constant memory cuphase's "read-only" error; an acceptance is either deferred by
//!   design ([`DEFERRED`]: a data-dependent global index, or threads of different blocks, which
//!   the simulator's run-time detector checks) or a soundness bug ([`SOUNDNESS_BUGS`], printed
//!   loudly so the branch stays green while the compiler is fixed); a rejection of a racy
//!   kernel through a pair of threads that cannot collide is listed in [`WRONG_REASON`];
//! - an entry of a list whose kernel no longer behaves so fails the test, and so does a
//!   `gpuverify/TABLE.md` that is not the one this test renders (`CUPHASE_BLESS=1` rewrites it),
//!   so neither can go stale.
//!
//! The case format (`cases.txt`): a case starts with `== <path under testsuite/CUDA>`, then
//! `key: value` lines (`label`, `expressible`, `attr`, `note`), then, for a translated kernel,
//! `---` and the kernel's Rust source, and optionally `--- helper` and a `#[device]` helper
//! (several). `label` is `pass`, `xfail <kind>` (`race`, `divergence`, `assert`,
//! `null-pointer`, `invariant`, `constant-write`, `zero-size`) or `tool <GPUVerify's label>`;
//! `expressible` is `yes` or `no: <reason>: <detail>`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::compile_str_with_helpers;

const CASES: &str = include_str!("gpuverify/cases.txt");
const TABLE: &str = include_str!("gpuverify/TABLE.md");

/// Kernels cuphase rejects although GPUVerify verifies them: `(path, kind, why)`, kind
/// `imprecision` (the analysis cannot see that the kernel is correct: to fix) or `by design`
/// (GPUVerify's semantics are not cuphase's: benign write-write races, lock-step warps).
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "pointertests/test_copy_between_memory_spaces",
        "by design",
        "cuphase rejects a kernel GPUVerify verifies because GPUVerify tolerates benign \
         write-write races by default (every thread writes the same value, `A[0]` under \
         `--equality-abstraction`, to `p[0]`; its Documentation/basic_usage.rst, \
         `--no-benign-tolerance`), while cuphase counts every unordered write-write pair as a \
         race, by design (README: `out[0] = v` from every thread is an error).",
    ),
    (
        "pointertests/test_copy_between_pointers",
        "by design",
        "cuphase rejects a kernel GPUVerify verifies because GPUVerify tolerates benign \
         write-write races by default (every thread writes the constant 0 to `p[0]` and to \
         `A[0]`), while cuphase counts every unordered write-write pair as a race, by design.",
    ),
    (
        "transitiveclosure",
        "imprecision",
        "cuphase rejects a correct kernel because its race freedom rests on the values read: a \
         thread writes `buf[y][x]` in iteration `k` only if `buf[y][x] == 0` while \
         `buf[y][k] != 0` and `buf[k][x] != 0`, so the elements other threads read in that \
         iteration are never the one written (for `k == x` or `k == y` the writer's own \
         guard is contradictory). The proof does not reason about loaded values and says so \
         (\"cannot prove\", no false witness).",
    ),
    (
        "warpsync/2d",
        "by design",
        "cuphase rejects a kernel GPUVerify verifies only under `--warp-sync=16`, which assumes \
         that the threads of a warp run in lock-step (pre-Volta GPUs): `tile[x][y] = \
         tile[y][x]` with no barrier. cuphase, like CUDA since Volta's independent thread \
         scheduling, orders memory only by barriers, so this is a race, by design.",
    ),
    (
        "warpsync/intragroup_scan",
        "by design",
        "cuphase rejects a kernel GPUVerify verifies only under `--warp-sync=32` (lock-step \
         warps): the warp scan reads `a[tid - d]` and writes `a[tid]` with no barrier. A race \
         under independent thread scheduling, by design. The form that is correct since Volta \
         (read, `sync_warp()`, write) is rejected too: the proof never counts a warp operation \
         as ordering memory, not even within one warp. The check takes about 35 s.",
    ),
    (
        "warpsync/scan_warp",
        "by design",
        "cuphase rejects a kernel GPUVerify verifies only under `--warp-sync=32` (lock-step \
         warps); see `warpsync/intragroup_scan`. The check takes about 30 s.",
    ),
    (
        "warpsync/shuffle",
        "by design",
        "cuphase rejects a kernel GPUVerify verifies only under `--warp-sync=32` (lock-step \
         warps): `a[tid] = a[warp * 32 + (tid + 1) % 32]` reads another lane's element as that \
         lane writes it; a race under independent thread scheduling, by design.",
    ),
];

/// Racy-labelled kernels cuphase accepts by design, left to the simulator's run-time detector:
/// `(path, kind, why)`, kind `data-dependent` or `cross-block`.
const DEFERRED: &[(&str, &str, &str)] = &[
    (
        "atomics/add_tid",
        "data-dependent",
        "the index is an atomic's result (`atomic_add(0, tid)` gives threads 0 and 1 the same \
         old value when thread 0 goes first), which the proof does not model.",
    ),
    (
        "atomics/add_zero",
        "data-dependent",
        "the index is an atomic's result (`atomic_add(0, 0)` gives every thread the same value), \
         which the proof does not model.",
    ),
    (
        "warpsync/bad_inter_group",
        "cross-block",
        "the race is between blocks (block `b` writes `a[b * 128 + t]`, which block `b - 1` \
         reads): races between blocks are left to the simulator's detector.",
    ),
    (
        "globalarray/fail",
        "data-dependent",
        "the write `p[0]` is guarded by a value loaded at a per-thread index \
         (`a[i] != i`): whether two threads take the branch depends on the data. The same \
         guard before a shared-array write is rejected (\"cannot prove\").",
    ),
];

/// Racy or divergent kernels cuphase accepts although the analysis models every index and
/// condition involved: `(path, why)`. Each is a soundness bug of the compiler.
const SOUNDNESS_BUGS: &[(&str, &str)] = &[];

/// Racy-labelled kernels cuphase rejects, but with a pair of threads that cannot collide (the
/// real race is another): `(path, why)`. They count as agreeing; the table says why not quite.
const WRONG_REASON: &[(&str, &str)] = &[];

/// What GPUVerify says of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    Pass,
    Race,
    Divergence,
    Assert,
    /// Another verification failure (null pointer, a failing user invariant, a write to
    /// constant memory, a zero-sized array): the string says which.
    Other,
    /// GPUVerify's own front end rejects the kernel (BUGLE_ERROR, CLANG_ERROR).
    Tool,
}

impl Label {
    fn category(self) -> &'static str {
        match self {
            Label::Pass => "pass",
            Label::Race => "xfail: data race",
            Label::Divergence => "xfail: barrier divergence",
            Label::Assert => "xfail: assertion",
            Label::Other => "xfail: other verification error",
            Label::Tool => "tool error (BUGLE/CLANG)",
        }
    }
}

/// One kernel of the suite.
struct Case {
    path: String,
    label: Label,
    /// The label as the table shows it (`pass`, `xfail race`, `tool BUGLE_ERROR`, ...).
    label_text: String,
    /// `None` when translated, else the reason (its group) and the detail.
    not_expressible: Option<(String, String)>,
    attr: String,
    note: String,
    kernel: String,
    helpers: Vec<String>,
}

fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    for chunk in text.split("\n== ").skip(1) {
        let mut lines = chunk.lines();
        let path = lines.next().unwrap_or_default().trim().to_string();
        let mut case = Case {
            path,
            label: Label::Pass,
            label_text: String::new(),
            not_expressible: None,
            attr: String::new(),
            note: String::new(),
            kernel: String::new(),
            helpers: Vec::new(),
        };
        // 0: header, 1: kernel, 2: a helper.
        let mut section = 0;
        for line in lines {
            if line.starts_with("--- helper") {
                section = 2;
                case.helpers.push(String::new());
                continue;
            }
            if line.starts_with("---") {
                section = 1;
                continue;
            }
            match section {
                0 => {
                    if line.trim().is_empty() || line.starts_with('#') {
                        continue;
                    }
                    let (key, value) = line
                        .split_once(':')
                        .unwrap_or_else(|| panic!("{}: bad header line {line:?}", case.path));
                    let value = value.trim();
                    match key {
                        "label" => {
                            case.label_text = value.to_string();
                            case.label = match value.split_whitespace().collect::<Vec<_>>()[..] {
                                ["pass"] => Label::Pass,
                                ["xfail", "race"] => Label::Race,
                                ["xfail", "divergence"] => Label::Divergence,
                                ["xfail", "assert"] => Label::Assert,
                                ["xfail", _] => Label::Other,
                                ["tool", _] => Label::Tool,
                                _ => panic!("{}: bad label {value:?}", case.path),
                            };
                        }
                        "expressible" => {
                            if value != "yes" {
                                let rest = value
                                    .strip_prefix("no:")
                                    .unwrap_or_else(|| panic!("{}: {value:?}", case.path));
                                let (group, detail) = rest.split_once(':').unwrap_or((rest, ""));
                                case.not_expressible =
                                    Some((group.trim().to_string(), detail.trim().to_string()));
                            }
                        }
                        "attr" => case.attr = value.to_string(),
                        "note" => {
                            if !case.note.is_empty() {
                                case.note.push(' ');
                            }
                            case.note.push_str(value);
                        }
                        _ => panic!("{}: unknown key {key:?}", case.path),
                    }
                }
                1 => {
                    case.kernel.push_str(line);
                    case.kernel.push('\n');
                }
                _ => {
                    let h = case.helpers.last_mut().expect("a helper section");
                    h.push_str(line);
                    h.push('\n');
                }
            }
        }
        assert!(!case.label_text.is_empty(), "{}: no label", case.path);
        assert_eq!(
            case.not_expressible.is_none(),
            !case.kernel.trim().is_empty(),
            "{}: a kernel is given exactly when it is expressible",
            case.path
        );
        cases.push(case);
    }
    cases
}

/// How cuphase's verdict compares with the label.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    NotExpressible,
    Agree,
    /// Rejected as GPUVerify does, but the race named is not a real one.
    AgreeWrongReason(String),
    /// Rejected, GPUVerify verifies it (or rejected for another reason).
    FalsePositive(String),
    Deferred(String, String),
    FalseNegative(String),
}

/// The needle an error must contain to agree with a failing label.
fn needles(case: &Case) -> &'static [&'static str] {
    match case.label {
        Label::Race => &["data race", "cannot prove that two threads never meet"],
        Label::Divergence => &["is not reached by every thread"],
        Label::Other if case.label_text.contains("constant-write") => &["read-only"],
        _ => &[],
    }
}

struct Row {
    verdict: String,
    outcome: Outcome,
    /// What is wrong with the lists for this case (nothing, normally).
    failures: Vec<String>,
}

/// Compiles one case and compares the verdict with its label and the lists.
fn run(case: &Case) -> Row {
    let mut failures = Vec::new();
    if case.not_expressible.is_some() {
        return Row {
            verdict: "—".to_string(),
            outcome: Outcome::NotExpressible,
            failures,
        };
    }
    let helpers: Vec<&str> = case.helpers.iter().map(String::as_str).collect();
    let started = std::time::Instant::now();
    let got = compile_str_with_helpers(&case.attr, &case.kernel, &helpers, "k.rs")
        .map(|_| ())
        .map_err(|d| d.iter().map(|d| d.full_message()).collect::<Vec<_>>());
    if std::env::var("GPUVERIFY_VERBOSE").is_ok() {
        println!("{}: {:?}", case.path, started.elapsed());
    }
    let verdict = match &got {
        Ok(()) => "accepted".to_string(),
        Err(all) => {
            let first = all[0].lines().next().unwrap_or_default();
            format!("rejected: {first}")
        }
    };
    let known = KNOWN.iter().find(|(p, _, _)| *p == case.path);
    let deferred = DEFERRED.iter().find(|(p, _, _)| *p == case.path);
    let bug = SOUNDNESS_BUGS.iter().find(|(p, _)| *p == case.path);
    let wrong = WRONG_REASON.iter().find(|(p, _)| *p == case.path);
    let expected_ok = case.label == Label::Pass;
    let outcome = match (&got, expected_ok) {
        (Ok(()), true) => Outcome::Agree,
        (Err(all), false)
            if all
                .iter()
                .any(|m| needles(case).iter().any(|n| m.contains(n))) =>
        {
            match wrong {
                Some((_, why)) => Outcome::AgreeWrongReason(why.to_string()),
                None => Outcome::Agree,
            }
        }
        (Err(all), _) => match known {
            Some((_, kind, why)) => Outcome::FalsePositive(format!("{kind}: {why}")),
            None => {
                failures.push(format!(
                    "{}: labelled {}, cuphase rejects it:\n{}\n(add it to KNOWN with the reason)",
                    case.path,
                    case.label_text,
                    all[..all.len().min(2)].join("\n")
                ));
                Outcome::FalsePositive(String::new())
            }
        },
        (Ok(()), false) => match (deferred, bug) {
            (Some((_, kind, why)), _) => Outcome::Deferred(kind.to_string(), why.to_string()),
            (None, Some((_, why))) => Outcome::FalseNegative(why.to_string()),
            (None, None) => {
                failures.push(format!(
                    "{}: labelled {}, cuphase accepts it (add it to DEFERRED or SOUNDNESS_BUGS)",
                    case.path, case.label_text
                ));
                Outcome::FalseNegative(String::new())
            }
        },
    };
    // A list entry must describe what the kernel does now.
    let stale = |list: &str| {
        format!(
            "{}: listed in {list} but the outcome is {outcome:?}",
            case.path
        )
    };
    if known.is_some() && !matches!(outcome, Outcome::FalsePositive(_)) {
        failures.push(stale("KNOWN"));
    }
    if deferred.is_some() && !matches!(outcome, Outcome::Deferred(..)) {
        failures.push(stale("DEFERRED"));
    }
    if bug.is_some() && !matches!(outcome, Outcome::FalseNegative(_)) {
        failures.push(stale("SOUNDNESS_BUGS"));
    }
    if wrong.is_some() && !matches!(outcome, Outcome::AgreeWrongReason(_)) {
        failures.push(stale("WRONG_REASON"));
    }
    Row {
        verdict,
        outcome,
        failures,
    }
}

/// Counts of one summary line.
#[derive(Default)]
struct Counts {
    total: usize,
    expressible: usize,
    agree: usize,
    false_positives: usize,
    false_negatives: usize,
    deferred: usize,
}

impl Counts {
    fn add(&mut self, outcome: &Outcome) {
        self.total += 1;
        if *outcome != Outcome::NotExpressible {
            self.expressible += 1;
        }
        match outcome {
            Outcome::Agree | Outcome::AgreeWrongReason(_) => self.agree += 1,
            Outcome::FalsePositive(_) => self.false_positives += 1,
            Outcome::FalseNegative(_) => self.false_negatives += 1,
            Outcome::Deferred(..) => self.deferred += 1,
            Outcome::NotExpressible => {}
        }
    }
    fn line(&self, name: &str) -> String {
        format!(
            "| {name} | {} | {} | {} | {} | {} | {} |",
            self.total,
            self.expressible,
            self.agree,
            self.false_positives,
            self.false_negatives,
            self.deferred
        )
    }
}

/// Table cells may not hold `|` or line breaks.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn render(cases: &[Case], rows: &[Row]) -> (String, String) {
    let mut per: BTreeMap<Label, Counts> = BTreeMap::new();
    let mut all = Counts::default();
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for (case, row) in cases.iter().zip(rows) {
        per.entry(case.label).or_default().add(&row.outcome);
        all.add(&row.outcome);
        if let Some((group, _)) = &case.not_expressible {
            *reasons.entry(group).or_default() += 1;
        }
    }
    let mut summary = String::new();
    summary.push_str(
        "| category | total | expressible | agree | false positives | false negatives | deferred |\n",
    );
    summary.push_str("|---|---|---|---|---|---|---|\n");
    for (label, counts) in &per {
        summary.push_str(&counts.line(label.category()));
        summary.push('\n');
    }
    summary.push_str(&all.line("**all**"));
    summary.push('\n');
    let fp_kind = |kind: &str| {
        rows.iter()
            .filter(|r| matches!(&r.outcome, Outcome::FalsePositive(w) if w.starts_with(kind)))
            .count()
    };
    let wrong = rows
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::AgreeWrongReason(_)))
        .count();
    let _ = write!(
        summary,
        "\nfalse positives: {} imprecision (to fix), {} by design (GPUVerify tolerates benign \
         write-write races and, with `--warp-sync`, runs warps in lock-step; cuphase does \
         neither). agree includes {wrong} rejection(s) for a wrong reason (a pair of threads \
         that cannot collide).\n",
        fp_kind("imprecision"),
        fp_kind("by design"),
    );

    let mut t = String::new();
    t.push_str("# GPUVerify's CUDA test suite, checked by cuphase\n\n");
    t.push_str(
        "Generated by `compiler/src/analysis/gpuverify_tests.rs` from `cases.txt` \
         (`CUPHASE_BLESS=1 cargo test -p cuphase-compiler --lib gpuverify` rewrites it; the \
         test fails when this file is not what it renders). Source: \
         github:mc-imperial/gpuverify, commit 49219770, `testsuite/CUDA/*/kernel.cu` (183 \
         kernels). Paths are relative to `testsuite/CUDA`.\n\n",
    );
    t.push_str("## Summary\n\n");
    t.push_str(&summary);
    t.push_str(
        "\nagree: cuphase's verdict is GPUVerify's (accepted for `pass`; rejected with a race, \
         divergence or read-only error for the matching `xfail`). false positive: rejected \
         although GPUVerify verifies it. false negative: accepted although racy or divergent \
         through indices and conditions the analysis models: a soundness bug. deferred: a \
         racy kernel accepted by design (issue 11 §1): a data-dependent global index, or a \
         race between blocks, both left to the simulator's run-time detector.\n",
    );
    let section = |t: &mut String, title: &str, pick: &dyn Fn(&Outcome) -> Option<String>| {
        let _ = write!(t, "\n## {title}\n\n");
        let mut any = false;
        for (c, r) in cases.iter().zip(rows) {
            if let Some(why) = pick(&r.outcome) {
                let _ = writeln!(t, "- `{}`: {why}", c.path);
                any = true;
            }
        }
        if !any {
            t.push_str("None.\n");
        }
    };
    section(
        &mut t,
        "Soundness bugs (false negatives)",
        &|o: &Outcome| match o {
            Outcome::FalseNegative(why) => Some(format!("**{why}**")),
            _ => None,
        },
    );
    section(&mut t, "False positives", &|o: &Outcome| match o {
        Outcome::FalsePositive(why) => Some(why.clone()),
        _ => None,
    });
    section(
        &mut t,
        "Rejected as GPUVerify does, for a wrong reason",
        &|o: &Outcome| match o {
            Outcome::AgreeWrongReason(why) => Some(why.clone()),
            _ => None,
        },
    );
    section(
        &mut t,
        "Deferred to the simulator",
        &|o: &Outcome| match o {
            Outcome::Deferred(kind, why) => Some(format!("{kind}: {why}")),
            _ => None,
        },
    );
    t.push_str("\n## Why kernels are not expressible\n\n");
    t.push_str("| reason | kernels |\n|---|---|\n");
    let mut reasons: Vec<_> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (group, n) in reasons {
        let _ = writeln!(t, "| {} | {n} |", cell(group));
    }
    t.push_str("\n## Kernels\n\n");
    t.push_str("| path | label | expressible | cuphase verdict | agree? | note |\n");
    t.push_str("|---|---|---|---|---|---|\n");
    for (case, row) in cases.iter().zip(rows) {
        let expressible = match &case.not_expressible {
            None if case.attr.is_empty() => "yes".to_string(),
            None => format!("yes (`{}`)", case.attr),
            Some((group, detail)) if detail.is_empty() => format!("no: {group}"),
            Some((group, detail)) => format!("no: {group}: {detail}"),
        };
        // The reasons of the lists stand in their sections above; a row points there.
        let (agree, see) = match &row.outcome {
            Outcome::NotExpressible => ("—".to_string(), ""),
            Outcome::Agree => ("yes".to_string(), ""),
            Outcome::AgreeWrongReason(_) => (
                "yes, but for a wrong reason".to_string(),
                "Why: see \"Rejected as GPUVerify does, for a wrong reason\".",
            ),
            Outcome::FalsePositive(why) => (
                format!(
                    "no: false positive ({})",
                    why.split(':').next().unwrap_or_default()
                ),
                "Why: see \"False positives\".",
            ),
            Outcome::FalseNegative(_) => (
                "**no: FALSE NEGATIVE (soundness bug)**".to_string(),
                "Why: see \"Soundness bugs\".",
            ),
            Outcome::Deferred(kind, _) => (
                format!("deferred: {kind}"),
                "Why: see \"Deferred to the simulator\".",
            ),
        };
        let note = match (case.note.is_empty(), see.is_empty()) {
            (_, true) => case.note.clone(),
            (true, false) => see.to_string(),
            (false, false) => format!("{} {see}", case.note),
        };
        let _ = writeln!(
            t,
            "| `{}` | {} | {} | {} | {} | {} |",
            case.path,
            cell(&case.label_text),
            cell(&expressible),
            cell(&row.verdict),
            cell(&agree),
            cell(&note)
        );
    }
    (t, summary)
}

#[test]
fn gpuverify_cuda_suite_verdicts() {
    let cases = parse_cases(CASES);
    assert_eq!(cases.len(), 183, "the suite has 183 kernels");
    let mut paths: Vec<&str> = cases.iter().map(|c| c.path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    assert_eq!(paths.len(), cases.len(), "a path is listed twice");
    let listed = KNOWN
        .iter()
        .map(|k| (k.0, k.1))
        .chain(DEFERRED.iter().map(|d| (d.0, d.1)));
    for (p, kind) in listed {
        assert!(paths.contains(&p), "{p}: listed but not a case");
        assert!(
            ["imprecision", "by design", "data-dependent", "cross-block"].contains(&kind),
            "{p}: kind {kind:?}"
        );
    }
    for (p, _) in SOUNDNESS_BUGS.iter().chain(WRONG_REASON) {
        assert!(paths.contains(p), "{p}: listed but not a case");
    }

    // A few kernels take tens of seconds to check: spread the cases over the cores.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let slots: Vec<std::sync::Mutex<Option<Row>>> =
        cases.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let done = run(case);
                *slots[i].lock().expect("a slot") = Some(done);
            });
        }
    });
    let mut failures = Vec::new();
    let mut rows = Vec::new();
    for slot in slots {
        let mut row = slot.into_inner().expect("a slot").expect("every case ran");
        failures.append(&mut row.failures);
        rows.push(row);
    }
    if std::env::var("GPUVERIFY_VERBOSE").is_ok() {
        for (c, r) in cases.iter().zip(&rows) {
            if c.not_expressible.is_none() {
                println!(
                    "{}: {} -> {:?} / {}",
                    c.path, c.label_text, r.outcome, r.verdict
                );
            }
        }
    }
    let (table, summary) = render(&cases, &rows);
    println!("GPUVerify's CUDA suite, checked by cuphase:\n{summary}");
    for (p, why) in SOUNDNESS_BUGS {
        eprintln!("!!!!!!!! SOUNDNESS BUG: cuphase accepts `{p}`, which is racy/divergent: {why}");
    }
    if table != TABLE {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/analysis/gpuverify/TABLE.md"
        );
        if std::env::var("CUPHASE_BLESS").is_ok_and(|v| v == "1") {
            std::fs::write(path, &table).expect("write TABLE.md");
        } else {
            failures.push(format!(
                "{path} is stale: run with CUPHASE_BLESS=1 and review `git diff`"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
