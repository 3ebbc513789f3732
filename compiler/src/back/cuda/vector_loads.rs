//! Whole elements of vector slices read in one access.
//!
//! Takes a run of a block's statements; gives, where the run is the lowering of one whole
//! element read (`let v = x[i]`, `tile[t] = x[i]`: one assignment per lane, each from the
//! same index into the next lane's array), the C of one load of the element
//! (`const f32x4 x_elem = x[i];`) and the lane copies from it. NVCC would merge the lane loads
//! itself, but splits them where some lanes are used only under a branch (it sinks those
//! loads into the branch): one load of the aligned struct stays one 16-byte access.
//! Guarantees: the meaning is unchanged (a lane's store never touches memory another lane's
//! load reads, the index is read once either way and no lane changes it), the bounds check
//! is the first lane's, and a run that is not exactly such a read is left to `stmt`.

use super::writer::Writer;
use crate::back::namer::c_member_name;
use crate::ir::*;

impl Writer<'_> {
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
