//! The rules of warpgroup multiplies (`wgmma_*`) beyond shared memory, whose reads the hazard
//! analysis follows:
//!
//! - a kernel that multiplies by warpgroups declares a fixed block shape of whole warpgroups
//!   (`block = (..)`, a multiple of 128 threads, checked at launch), since a warpgroup's 128
//!   threads execute each multiply together;
//! - while a multiply into an accumulator may be in flight (issued, and not covered by a
//!   `wgmma_wait` of the issuing thread since), no other statement reads or writes that
//!   accumulator: the hardware writes its registers until the wait. Multiplies into it may
//!   follow (they chain in order). Likewise an `A` fragment in registers: the hardware reads
//!   it until the wait, so only more multiplies may read it as their `A` until then.
//!
//! The second is a dataflow over the structured control flow: per accumulator or fragment
//! array, the fewest groups committed since a multiply used it (saturating), joined by the
//! minimum.

use crate::diag::{Ctxt, Diagnostic};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// The most commits counted since a multiply (more is "at least this").
const COMMITS_KNOWN: u8 = 8;

/// What a multiply in flight does with a thread-local array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Writes it: the accumulator.
    Accumulator,
    /// Reads it: an `A` fragment in registers.
    Fragment,
}

/// Per array in flight: commits since its latest multiply, that multiply, and the role.
type State = BTreeMap<usize, (u8, Span, Role)>;

/// Checks the rules of the module; reports through `cx`.
pub fn check(cx: &mut Ctxt, k: &Kernel) {
    let mut first = None;
    visit::for_each_stmt(&k.body, false, &mut |s, _| {
        if let Stmt::Wgmma { shape, .. } = s {
            first.get_or_insert(shape.function());
        }
    });
    let Some(function) = first else {
        return;
    };
    let threads = cuphase_contract::wgmma::THREADS as u64;
    let whole = k
        .options
        .block
        .is_some_and(|b| b.iter().map(|d| u64::from(*d)).product::<u64>() % threads == 0);
    if !whole {
        let mut span = None;
        find_first(&k.body, &mut span);
        let shape = match k.options.block {
            Some([x, y, z]) => format!(
                "`block = ({x}, {y}, {z})`, {} threads",
                u64::from(x) * u64::from(y) * u64::from(z)
            ),
            None => "no fixed block shape".to_string(),
        };
        if let Some(span) = span {
            cx.push(
                Diagnostic::new(
                    span,
                    format!("`{function}` needs blocks of whole warpgroups (128 threads each), but the kernel has {shape}"),
                )
                .note("declare the block shape, a multiple of 128 threads: `#[kernel(block = (256, 1, 1))]` (checked at launch)"),
            );
        }
    }
    let mut flow = Flow {
        k,
        cx,
        reported: BTreeSet::new(),
        loops: Vec::new(),
    };
    let mut st = State::new();
    flow.block(&k.body, &mut st);
}

fn find_first(b: &Block, out: &mut Option<Span>) {
    for (s, span) in b.iter() {
        if out.is_some() {
            return;
        }
        if matches!(s, Stmt::Wgmma { .. }) {
            *out = Some(span);
            return;
        }
        for inner in s.blocks() {
            find_first(inner, out);
        }
    }
}

struct Flow<'a, 'c> {
    k: &'a Kernel,
    cx: &'c mut Ctxt,
    /// Statements already reported (a loop body is walked more than once).
    reported: BTreeSet<(u32, u32, usize)>,
    /// The enclosing loops, innermost last.
    loops: Vec<LoopFrame>,
}

/// A loop being walked: its label, and the states joined at the `break`s and `continue`s that
/// leave or restart it.
struct LoopFrame {
    label: Option<Handle<Label>>,
    breaks: State,
    continues: State,
}

/// `a` joined with `b`: every array in flight in either, with the fewest commits.
fn join(a: &mut State, b: &State) {
    for (arr, v) in b {
        a.entry(*arr)
            .and_modify(|e| {
                if v.0 < e.0 {
                    *e = *v;
                }
            })
            .or_insert(*v);
    }
}

impl Flow<'_, '_> {
    fn block(&mut self, b: &Block, st: &mut State) {
        for (s, span) in b.iter() {
            self.stmt(s, span, st);
        }
    }

    fn stmt(&mut self, s: &Stmt, span: Span, st: &mut State) {
        match s {
            Stmt::Wgmma { acc, a, .. } => {
                self.touches(s, span, st);
                st.insert(acc.array.index(), (0, span, Role::Accumulator));
                if let WgmmaA::Registers(f) = a {
                    st.insert(f.array.index(), (0, span, Role::Fragment));
                }
            }
            Stmt::WgmmaCommit => {
                for v in st.values_mut() {
                    v.0 = (v.0 + 1).min(COMMITS_KNOWN);
                }
            }
            Stmt::WgmmaWait { pending } => st.retain(|_, v| u32::from(v.0) <= *pending),
            Stmt::If { accept, reject, .. } => {
                self.touches(s, span, st);
                let mut other = st.clone();
                self.block(accept, st);
                self.block(reject, &mut other);
                join(st, &other);
            }
            Stmt::Loop { label, kind, body } => {
                // A `for` loop's bounds are evaluated once, before it; a `while` condition at
                // every head (below).
                let while_loop = matches!(kind, LoopKind::While { .. });
                if !while_loop {
                    self.touches(s, span, st);
                }
                self.loops.push(LoopFrame {
                    label: *label,
                    breaks: State::new(),
                    continues: State::new(),
                });
                // The head's state: the entry's joined with every path back to it (the body's
                // end, its `continue`s), to the fixpoint. Joins only lower counts or add
                // arrays, so it is reached within the lattice's height.
                let height = (self.k.arrays.len() + 1) * (usize::from(COMMITS_KNOWN) + 2);
                let mut head = st.clone();
                for _ in 0..=height {
                    if while_loop {
                        self.touches(s, span, &head);
                    }
                    let mut cur = head.clone();
                    self.block(body, &mut cur);
                    let mut next = head.clone();
                    join(&mut next, &cur);
                    if let Some(frame) = self.loops.last() {
                        join(&mut next, &frame.continues);
                    }
                    let counts = |m: &State| m.iter().map(|(a, v)| (*a, v.0)).collect::<Vec<_>>();
                    if counts(&next) == counts(&head) {
                        break;
                    }
                    head = next;
                }
                let frame = self.loops.pop();
                *st = head;
                if let Some(frame) = frame {
                    join(st, &frame.breaks);
                }
            }
            Stmt::Block(b) => self.block(b, st),
            Stmt::Break { label } => {
                if let Some(frame) = self.target(*label) {
                    join(&mut frame.breaks, st);
                }
            }
            Stmt::Continue { label } => {
                if let Some(frame) = self.target(*label) {
                    join(&mut frame.continues, st);
                }
            }
            _ => self.touches(s, span, st),
        }
    }

    /// The loop a `break` or `continue` with `label` leaves or restarts: the innermost, or the
    /// labelled one.
    fn target(&mut self, label: Option<Handle<Label>>) -> Option<&mut LoopFrame> {
        match label {
            None => self.loops.last_mut(),
            Some(l) => self.loops.iter_mut().rev().find(|f| f.label == Some(l)),
        }
    }

    /// Reports an access of statement `s` (not of its nested blocks) to an array in flight: a
    /// multiply may add into an accumulator in flight and read a fragment in flight as its `A`.
    fn touches(&mut self, s: &Stmt, span: Span, st: &State) {
        if st.is_empty() {
            return;
        }
        let k = self.k;
        let mut arrays: Vec<Handle<Array>> = Vec::new();
        for e in s.operands() {
            visit::any_expr(k, e, &mut |x| {
                if let Expr::Load { array, .. } = x {
                    arrays.push(*array);
                }
                false
            });
        }
        match s {
            Stmt::Assign {
                place: Place::Element { array, .. },
                ..
            } => arrays.push(*array),
            Stmt::Mma { acc, a, b, .. } => arrays.extend([acc.array, a.array, b.array]),
            Stmt::LoadMatrix { frag, .. } => arrays.push(frag.array),
            Stmt::Wgmma { acc, a, .. } => {
                let as_a = match a {
                    WgmmaA::Registers(f) => Some(f.array),
                    WgmmaA::Tile { .. } => None,
                };
                for (array, role) in [(Some(acc.array), Role::Accumulator), (as_a, Role::Fragment)]
                {
                    let Some(array) = array else { continue };
                    if st.get(&array.index()).is_some_and(|v| v.2 != role) {
                        arrays.push(array);
                    }
                }
            }
            _ => {}
        }
        for a in arrays {
            let Some((_, issued, role)) = st.get(&a.index()) else {
                continue;
            };
            let at = span.start();
            if !self
                .reported
                .insert((at.line as u32, at.column as u32, a.index()))
            {
                continue;
            }
            let name = &k.arrays.get(a).name;
            let (doing, does, may) = match role {
                Role::Accumulator => ("writing", "writes", "add into the accumulator"),
                Role::Fragment => ("reading", "reads", "read the fragment as their `A`"),
            };
            self.cx.push(
                Diagnostic::new(
                    span,
                    format!("`{name}` is used while a `wgmma` may still be {doing} it"),
                )
                .label(
                    *issued,
                    format!("this multiply {does} `{name}` until a `wgmma_wait` covers its group"),
                )
                .note(format!("wait for the multiplies first (`wgmma_commit(); wgmma_wait(0);`): until then only more `wgmma` may {may}")),
            );
        }
    }
}
