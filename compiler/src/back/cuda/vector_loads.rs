//! Whole elements of vector slices, and whole rows of arrays of them, in one access.
//!
//! Takes a run of a block's statements; gives, where the run is the lowering of one whole
//! copy, its C as one access. Two shapes:
//!
//! - A copy between whole rows: an element of a vector slice (`x[i]`) or a row of an array
//!   declared as an array of vector records (`tile[t]`, a local `[f32; 4]`; see
//!   [`super::writer::Writer::rows`]) into another (`tile[t] = x[i]`, `v = x[i]`,
//!   `out[i] = tile[t]`): one struct assignment (`tile[t] = x[i];`). NVCC then keeps the
//!   value in one register quad from the 16-byte load to the 16-byte store; copied lane by
//!   lane, ptxas schedules the loads later (an SGEMM's prefetch of its next tiles sank from
//!   before its multiply loop into the middle of it, 5% slower than the same kernel with
//!   whole-value copies).
//! - A whole element read into lanes that are no row (the array field of a struct
//!   variable, one local a lane: `q.v = x[i]`): one load of the element (`const f32x4 x_elem = x[i];`) and the lane copies from
//!   it. NVCC would merge the lane loads itself, but splits them where some lanes are used
//!   only under a branch (it sinks those loads into the branch): one load of the aligned
//!   struct stays one 16-byte access.
//!
//! Guarantees: the meaning is unchanged (two rows of one record are the same memory or
//! disjoint, so a lane's store never touches memory another lane's load reads; the indices
//! read no memory and no variable that changes, so they are read once either way), the
//! bounds checks are the first lane's, and a run that is not exactly such a copy is left to
//! `stmt`.

use super::writer::Writer;
use crate::back::namer::c_member_name;
use crate::ir::*;

/// One lane of a whole row: the row (a vector slice's element, or a row of an array of
/// records), its indices, and the lane.
struct Lane {
    /// The row's identity: the slice's base name, or the array.
    row: RowOf,
    /// The array of the lane itself (for a vector slice, the lane's field array).
    array: Handle<Array>,
    /// The indices of the row (without the lane).
    index: Vec<Handle<Expr>>,
    /// Which lane.
    lane: usize,
}

#[derive(PartialEq)]
enum RowOf {
    Slice(String),
    Array(Handle<Array>),
}

/// Whether `a` and `b` are the same expression of locals, literals and builtins (so, with no
/// assignment between them, the same value).
fn same_value(k: &Kernel, a: Handle<Expr>, b: Handle<Expr>) -> bool {
    match (k.exprs.get(a), k.exprs.get(b)) {
        (Expr::Local(x), Expr::Local(y)) => x == y,
        (
            Expr::Literal(Literal::Int {
                value: x,
                suffix: s,
            }),
            Expr::Literal(Literal::Int {
                value: y,
                suffix: t,
            }),
        ) => x == y && s == t,
        (
            Expr::Builtin {
                builtin: b1,
                axis: a1,
            },
            Expr::Builtin {
                builtin: b2,
                axis: a2,
            },
        ) => b1 == b2 && a1 == a2,
        (Expr::Unary { op: o1, expr: e1 }, Expr::Unary { op: o2, expr: e2 }) => {
            o1 == o2 && same_value(k, *e1, *e2)
        }
        (
            Expr::Binary {
                op: o1,
                left: l1,
                right: r1,
            },
            Expr::Binary {
                op: o2,
                left: l2,
                right: r2,
            },
        ) => o1 == o2 && same_value(k, *l1, *l2) && same_value(k, *r1, *r2),
        (Expr::Cast { expr: e1, to: t1 }, Expr::Cast { expr: e2, to: t2 }) => {
            t1 == t2 && same_value(k, *e1, *e2)
        }
        _ => false,
    }
}

impl Writer<'_> {
    /// The lane of a whole row that `array[index]` is, with the row's record.
    fn lane_of(&self, array: Handle<Array>, index: &[Handle<Expr>]) -> Option<(Lane, usize)> {
        let k = self.k;
        let a = k.arrays.get(array);
        if let Some(f) = &a.field {
            let rec = k.records.get(f.record)?;
            if !rec.vector || index.len() != 1 {
                return None;
            }
            let lane = Lane {
                row: RowOf::Slice(f.base.clone()),
                array,
                index: index.to_vec(),
                lane: f.leaf,
            };
            return Some((lane, f.record));
        }
        let rec = self.rows[array.index()]?;
        let (last, rest) = index.split_last()?;
        let Expr::Literal(Literal::Int { value, .. }) = k.exprs.get(*last) else {
            return None;
        };
        let lane = Lane {
            row: RowOf::Array(array),
            array,
            index: rest.to_vec(),
            lane: usize::try_from(*value).ok()?,
        };
        Some((lane, rec))
    }

    /// The C text of a whole row (checked when `checked`; a check inline sets
    /// `inline_check`).
    fn row_text(&mut self, l: &Lane, checked: bool, span: Span) -> Option<String> {
        let r = if checked {
            self.checked_element(l.array, &l.index, span)
        } else {
            self.element(l.array, &l.index)
        };
        let suffix = &self.field_suffixes[l.array.index()];
        Some(r.text.strip_suffix(suffix.as_str())?.to_string())
    }

    /// Writes `stmts[0..n]` as one struct assignment when they copy a whole row into
    /// another (see the module docs), returning `n`; `None` (and nothing written) otherwise.
    pub(super) fn row_copy(&mut self, stmts: &[Stmt], spans: &[Span]) -> Option<usize> {
        let k = self.k;
        let sides = |w: &Self, s: &Stmt| -> Option<((Lane, usize), (Lane, usize))> {
            let Stmt::Assign {
                op: None,
                place: Place::Element { array, index },
                value,
            } = s
            else {
                return None;
            };
            let Expr::Load {
                array: from,
                index: from_index,
            } = k.exprs.get(*value)
            else {
                return None;
            };
            Some((w.lane_of(*array, index)?, w.lane_of(*from, from_index)?))
        };
        let ((dst0, rec), (src0, src_rec)) = sides(self, stmts.first()?)?;
        let record = k.records.get(rec)?;
        let n = record
            .fields
            .first()
            .map_or(0, |f| leaf_count(&k.records, &f.ty));
        if rec != src_rec || n < 2 || stmts.len() < n || dst0.lane != 0 || src0.lane != 0 {
            return None;
        }
        let stable = |l: &Lane| l.index.iter().all(|e| self.is_stable(*e));
        if !stable(&dst0) || !stable(&src0) {
            return None;
        }
        let same_row = |a: &Lane, b: &Lane| {
            a.row == b.row
                && a.index.len() == b.index.len()
                && a.index
                    .iter()
                    .zip(&b.index)
                    .all(|(x, y)| same_value(k, *x, *y))
        };
        for (j, s) in stmts[..n].iter().enumerate() {
            let ((dst, _), (src, _)) = sides(self, s)?;
            if dst.lane != j || src.lane != j || !same_row(&dst, &dst0) || !same_row(&src, &src0) {
                return None;
            }
        }
        self.map_to(spans[0]);
        self.guard_element(dst0.array, &dst0.index, spans[0]);
        let Stmt::Assign { value, .. } = &stmts[0] else {
            return None;
        };
        let src = self.row_text(&src0, self.checks, k.exprs.span(*value))?;
        let dst = self.row_text(&dst0, false, spans[0])?;
        if self.inline_check {
            // The source's index was out of bounds: stop before storing anything.
            let base = match &src0.row {
                RowOf::Slice(base) => format!("{base}_elem"),
                RowOf::Array(a) => format!("{}_row", k.arrays.get(*a).ident()),
            };
            let name = self.namer.call(&base);
            let ty = c_member_name(&record.name);
            self.line(&format!("const {ty} {name} = {src};"));
            self.line(&format!("if ({}.hit) return;", super::checks::FAULTS));
            self.inline_check = false;
            self.line(&format!("{dst} = {name};"));
        } else {
            self.line(&format!("{dst} = {src};"));
        }
        Some(n)
    }

    /// Writes `stmts[0..n]` as one element load when they are a whole-element read of a
    /// vector slice (see the module docs), returning `n`; `None` (and nothing written)
    /// otherwise.
    pub(super) fn vector_load(&mut self, stmts: &[Stmt], spans: &[Span]) -> Option<usize> {
        let k = self.k;
        let lane = |s: &Stmt| -> Option<(Handle<Array>, Handle<Local>, usize)> {
            let Stmt::Assign {
                op: None, value, ..
            } = s
            else {
                return None;
            };
            let Expr::Load { array, index } = k.exprs.get(*value) else {
                return None;
            };
            let [ix] = index.as_slice() else {
                return None;
            };
            let Expr::Local(l) = k.exprs.get(*ix) else {
                return None;
            };
            let f = k.arrays.get(*array).field.as_ref()?;
            k.records
                .get(f.record)?
                .vector
                .then_some((*array, *l, f.leaf))
        };
        let (first, index, 0) = lane(stmts.first()?)? else {
            return None;
        };
        let f = k.arrays.get(first).field.as_ref()?;
        let rec = k.records.get(f.record)?;
        let n = rec
            .fields
            .first()
            .map_or(0, |fl| leaf_count(&k.records, &fl.ty));
        if n < 2 || stmts.len() < n {
            return None;
        }
        let mut lanes = Vec::with_capacity(n);
        for (j, s) in stmts[..n].iter().enumerate() {
            let (a, l, leaf) = lane(s)?;
            lanes.push(a);
            let same = k.arrays.get(a).field.as_ref()?;
            if l != index || leaf != j || same.record != f.record || same.base != f.base {
                return None;
            }
            // The targets: no lane writes the index, and their own indices read no memory
            // and no variable that changes (so they mean the same after the load).
            let Stmt::Assign { place, .. } = s else {
                return None;
            };
            match place {
                Place::Local(t) if *t == index => return None,
                Place::Local(_) => {}
                Place::Element { index, .. } => {
                    if !index.iter().all(|e| self.is_stable(*e)) {
                        return None;
                    }
                }
            }
        }
        // The element: the first lane's access (with its check) without the lane.
        self.map_to(spans[0]);
        let Stmt::Assign { value, .. } = &stmts[0] else {
            return None;
        };
        let Expr::Load { index: ix, .. } = k.exprs.get(*value) else {
            return None;
        };
        let lane0 = self.checked_element(first, &ix.clone(), k.exprs.span(*value));
        let suffix = &self.field_suffixes[first.index()];
        let element = lane0.text.strip_suffix(suffix.as_str())?.to_string();
        let name = self.namer.call(&format!("{}_elem", f.base));
        let ty = c_member_name(&rec.name);
        self.line(&format!("const {ty} {name} = {element};"));
        if self.inline_check {
            self.line(&format!("if ({}.hit) return;", super::checks::FAULTS));
            self.inline_check = false;
        }
        for ((s, span), a) in stmts[..n].iter().zip(spans).zip(lanes) {
            let Stmt::Assign { place, .. } = s else {
                continue;
            };
            self.map_to(*span);
            if let Place::Local(l) = place {
                if !self.read[l.index()] {
                    continue;
                }
            }
            if let Place::Element { array, index } = place {
                self.guard_element(*array, &index.clone(), *span);
            }
            let target = self.place(place);
            let lane = &self.field_suffixes[a.index()];
            self.line(&format!("{} = {name}{lane};", target.text));
        }
        Some(n)
    }
}
