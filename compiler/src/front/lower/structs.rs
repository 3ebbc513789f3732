//! User structs (`#[derive(DeviceStruct)]`), the places: `&[P]` parameters and shared arrays of
//! structs (one array per scalar field, see [`crate::ir::Record`]), struct variables (one local
//! per scalar field), and reads and writes of their fields. `struct_values` builds struct
//! values (literals, copies, helper arguments and results) on top.

use super::cx::{Binding, Lowerer, RecordSlice, Value};
use super::syntax::strip_parens;
use crate::diag::Diagnostic;
use crate::ir::*;
use std::ops::Range;

/// The most scalars one element of a slice of arrays (`&[[f32; 4]]`) holds.
const MAX_VECTOR: u64 = 256;

/// Where a struct-typed expression's leaves are.
#[derive(Clone, Debug)]
pub(super) enum Source {
    /// `ps[i]` (`tile[y][x]`): the array, by index into the lowerer's record slices, and
    /// the indices (variables or literals, so they can be read once per leaf).
    Elem(usize, Vec<Handle<Expr>>),
    /// `p`: the variable, by index into the lowerer's record values.
    Var(usize),
}

/// A place or value of struct type, or one of its fields: its type and its leaves.
#[derive(Clone, Debug)]
pub(super) struct Ref {
    pub(super) ty: FieldType,
    pub(super) source: Source,
    /// The leaves of the whole (outermost) struct it covers, with every computed index of
    /// `dynamic` at 0.
    pub(super) range: Range<usize>,
    /// The computed indices into array fields on the way (`p.pos[k]`), outermost first.
    pub(super) dynamic: Vec<Dynamic>,
    pub(super) span: Span,
}

/// A computed index into an array field: a [`Ref`]'s leaf `l` is leaf `l + index * stride`
/// of the struct, `index` in `0..len` (checked where it was lowered). Lowering chooses among
/// the `len` leaves with a chain of comparisons, as the elements are separate variables.
#[derive(Clone, Debug)]
pub(super) struct Dynamic {
    /// A variable (or literal) holding the index.
    pub(super) index: Handle<Expr>,
    pub(super) len: u64,
    pub(super) stride: usize,
}

/// The expression an index expression indexes, all its indices stripped (`ps` of `ps[i][j]`).
pub(super) fn index_base(e: &syn::Expr) -> &syn::Expr {
    let mut cur = strip_parens(e);
    while let syn::Expr::Index(ix) = cur {
        cur = strip_parens(&ix.expr);
    }
    cur
}

/// The name a type is written as, if it is one plain name (`Particle`).
fn plain_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => Some(p.path.get_ident()?.to_string()),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// The struct a type names, if the kernel's file defines one of that name deriving
    /// `DeviceStruct`: `Some(Ok(index))`, or `Some(Err(why))` when it cannot be used.
    pub(super) fn record_of_type(&mut self, ty: &syn::Type) -> Option<Result<usize, String>> {
        let id = plain_name(ty)?;
        if !self.consts.records.knows(&id) {
            return None;
        }
        Some(self.consts.records.resolve(&id, &mut self.records))
    }

    /// As [`Self::record_of_type`], where the type must be a struct if it is a plain name
    /// other than a scalar's (a slice parameter's element, a struct literal's path): such a
    /// name the file does not define is `Some(Err(why))`.
    pub(super) fn record_of_named_type(&mut self, ty: &syn::Type) -> Option<Result<usize, String>> {
        let id = plain_name(ty)?;
        if Scalar::from_rust_name(&id).is_some() || self.const_params.contains(&id) {
            return None;
        }
        Some(self.consts.records.resolve(&id, &mut self.records))
    }

    /// The vector record of a slice element type `[T; N]` (`&[[f32; 4]]`, see
    /// [`Record::vector`]): `Some(Ok(index))`, `Some(Err(why))` for an array type that cannot
    /// be one, `None` for a type that is no array.
    pub(super) fn vector_record(&mut self, ty: &syn::Type) -> Option<Result<usize, String>> {
        let mut ty = ty;
        while let syn::Type::Paren(syn::TypeParen { elem, .. })
        | syn::Type::Group(syn::TypeGroup { elem, .. }) = ty
        {
            ty = elem;
        }
        let syn::Type::Array(a) = ty else {
            return None;
        };
        let Some(elem) = super::syntax::type_to_scalar(&a.elem) else {
            return Some(Err(
                "the elements of a slice of arrays are arrays of scalars: `&[[f32; 4]]`".into(),
            ));
        };
        // (`const_len` reports a length it cannot read: nothing more to say.)
        let Some(n) = self.const_len(&a.len) else {
            return Some(Err(String::new()));
        };
        if n > MAX_VECTOR {
            return Some(Err(format!(
                "a slice's array elements hold at most {MAX_VECTOR} scalars here; this one holds {n}"
            )));
        }
        let rec = Record::vector(elem, n);
        if let Some(i) = self.records.iter().position(|r| *r == rec) {
            return Some(Ok(i));
        }
        if self.consts.records.knows(&rec.name) {
            return Some(Err(format!(
                "this file defines a struct `{}`, the name cuphase gives `[{elem}; {n}]` in the CUDA C; rename the struct",
                rec.name,
                elem = elem.rust_name()
            )));
        }
        self.records.push(rec);
        Some(Ok(self.records.len() - 1))
    }

    /// What an element of record slice `s` is in Rust: its struct, or the array of a slice of
    /// arrays.
    pub(super) fn slice_element_type(&self, s: usize) -> FieldType {
        let r = self.record_slices[s].record;
        self.records[r].value_type(r)
    }

    /// A `&[P]` parameter: one global array per leaf, bound to the name.
    pub(super) fn lower_record_param(
        &mut self,
        name: &str,
        record: usize,
        mutable: bool,
        span: Span,
    ) -> Handle<Array> {
        let leaves = leaves(&self.records, record);
        let arrays: Vec<Handle<Array>> = leaves
            .iter()
            .enumerate()
            .map(|(i, l)| {
                self.arrays.append(
                    Array {
                        name: self.records[record].leaf_array_name(name, l),
                        elem: l.ty,
                        kind: ArrayKind::Global { mutable },
                        field: Some(FieldOf {
                            record,
                            leaf: i,
                            base: name.to_string(),
                        }),
                    },
                    span,
                )
            })
            .collect();
        let first = arrays[0];
        self.record_slices.push(RecordSlice {
            record,
            leaves: arrays,
            name: name.to_string(),
            mutable,
        });
        self.bind(
            name.to_string(),
            Binding::Records(self.record_slices.len() - 1),
        );
        first
    }

    /// `let tile = shared::<[P; N]>();` (or `[[P; W]; H]`) of a struct `P`: one shared array
    /// per leaf (`tile.pos.x`), which no host sees, so the layout is the GPU's choice (one
    /// array per field avoids bank conflicts on strided fields). `None` when `e` is no such
    /// declaration.
    pub(super) fn try_record_shared(
        &mut self,
        name: &str,
        e: &syn::Expr,
        span: Span,
    ) -> Option<()> {
        let syn::Expr::Call(call) = strip_parens(e) else {
            return None;
        };
        let syn::Expr::Path(p) = &*call.func else {
            return None;
        };
        let last = p.path.segments.last()?;
        if last.ident != "shared" || !call.args.is_empty() {
            return None;
        }
        let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
            return None;
        };
        let Some(syn::GenericArgument::Type(ty)) = a.args.first() else {
            return None;
        };
        let mut lens = Vec::new();
        let mut cur = ty;
        while let syn::Type::Array(arr) = cur {
            lens.push(&arr.len);
            cur = &arr.elem;
        }
        let record = match self.record_of_type(cur)? {
            Ok(r) => r,
            Err(why) => {
                self.err(cur.src(), why);
                self.bind(name.to_string(), Binding::Poisoned);
                return Some(());
            }
        };
        if lens.is_empty() || lens.len() > 2 {
            self.err(
                ty.src(),
                "a shared array of structs has one or two dimensions: `shared::<[P; N]>()`",
            );
            self.bind(name.to_string(), Binding::Poisoned);
            return Some(());
        }
        let mut dims = Vec::new();
        for l in lens {
            match self.const_len(l) {
                Some(n) => dims.push(n),
                None => {
                    self.bind(name.to_string(), Binding::Poisoned);
                    return Some(());
                }
            }
        }
        let leaves = leaves(&self.records, record);
        let arrays = leaves
            .iter()
            .map(|l| {
                self.arrays.append(
                    Array {
                        name: self.records[record].leaf_array_name(name, l),
                        elem: l.ty,
                        kind: ArrayKind::Shared {
                            dims: dims.clone(),
                            dynamic: false,
                            len_param: None,
                        },
                        field: None,
                    },
                    span,
                )
            })
            .collect();
        self.record_slices.push(RecordSlice {
            record,
            leaves: arrays,
            name: name.to_string(),
            mutable: true,
        });
        self.bind(
            name.to_string(),
            Binding::Records(self.record_slices.len() - 1),
        );
        Some(())
    }

    /// `ps.len()` of a slice of structs.
    pub(super) fn record_slice_len(&mut self, s: usize, span: Span) -> Handle<Expr> {
        let a = self.record_slices[s].leaves[0];
        if let ArrayKind::Shared { dims, .. } = &self.arrays.get(a).kind {
            let n = dims.first().copied().unwrap_or(0);
            return self.expr(
                Expr::Literal(Literal::Int {
                    value: i128::from(n),
                    suffix: Some(Scalar::Usize),
                }),
                span,
            );
        }
        self.expr(Expr::Len(a), span)
    }

    /// The binding of the name an index expression (`a[i]`, `a[y][x]`) indexes.
    pub(super) fn indexed_records(&self, e: &syn::Expr) -> Option<Binding> {
        match index_base(e) {
            syn::Expr::Path(p) => self.lookup(&p.path.get_ident()?.to_string()),
            _ => None,
        }
    }

    /// Whether `e` indexes an array field of a struct (`p.pos[k]`, `ps[i].m[r][c]`).
    /// An element of an element of a slice of arrays (`a[i][k]`, `a: &[[f32; 4]]`) is one too.
    pub(super) fn indexes_array_field(&self, e: &syn::Expr) -> bool {
        if !matches!(strip_parens(e), syn::Expr::Index(_)) {
            return false;
        }
        match index_base(e) {
            syn::Expr::Path(_) => {
                let depth = std::iter::successors(Some(strip_parens(e)), |c| match c {
                    syn::Expr::Index(ix) => Some(strip_parens(&ix.expr)),
                    _ => None,
                })
                .count()
                    - 1;
                depth > 1
                    && matches!(self.indexed_records(e), Some(Binding::Records(s))
                        if self.records[self.record_slices[s].record].vector)
            }
            base => self.is_record_syntax(base),
        }
    }

    /// Whether `e` is written as a struct: a struct variable, an element of a slice of
    /// structs, a struct literal, or a field of those (of any type: the caller decides).
    pub(super) fn is_record_syntax(&self, e: &syn::Expr) -> bool {
        match strip_parens(e) {
            syn::Expr::Struct(_) => true,
            syn::Expr::Path(p) => matches!(
                p.path.get_ident().and_then(|i| self.lookup(&i.to_string())),
                Some(Binding::Record(_))
            ),
            syn::Expr::Index(_) => {
                matches!(self.indexed_records(e), Some(Binding::Records(_)))
                    || self.indexes_array_field(e)
            }
            syn::Expr::Field(f) => self.is_record_syntax(&f.base),
            syn::Expr::Call(c) => self.call_returns_record(c),
            syn::Expr::MethodCall(m) => self.method_returns_record(m),
            _ => false,
        }
    }

    /// Whether `c` calls a helper whose result is a struct of the kernel's file.
    pub(super) fn call_returns_record(&self, c: &syn::ExprCall) -> bool {
        let syn::Expr::Path(p) = &*c.func else {
            return false;
        };
        let from = self.calls.last().and_then(|f| f.resolve_in);
        let Some(h) = self
            .helpers
            .resolve(from, &p.path)
            .and_then(|i| self.helpers.get(i))
        else {
            return false;
        };
        match &h.func.sig.output {
            syn::ReturnType::Type(_, ty) => {
                plain_name(ty).is_some_and(|n| self.consts.records.knows(&n))
            }
            syn::ReturnType::Default => false,
        }
    }

    /// The struct place `e` denotes (`p`, `ps[i]`, `p.pos`, `ps[i].pos.x`); `None` after
    /// an error, or for a struct literal (which is no place).
    pub(super) fn record_ref(&mut self, e: &syn::Expr, out: &mut Block) -> Option<Ref> {
        let span = e.src();
        match strip_parens(e) {
            syn::Expr::Path(p) => {
                let Some(Binding::Record(v)) =
                    p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
                else {
                    return None;
                };
                let r = &self.record_values[v];
                Some(Ref {
                    ty: FieldType::Record(r.record),
                    range: 0..r.leaves.len(),
                    source: Source::Var(v),
                    dynamic: Vec::new(),
                    span,
                })
            }
            syn::Expr::Index(ix) if self.indexes_array_field(e) => {
                self.array_field_element(ix, out)
            }
            syn::Expr::Index(_) => {
                // `ps[i]`, `tile[y][x]`: the indices outermost first.
                let mut indices = Vec::new();
                let mut cur = strip_parens(e);
                while let syn::Expr::Index(ix) = cur {
                    indices.push(&*ix.index);
                    cur = strip_parens(&ix.expr);
                }
                indices.reverse();
                let syn::Expr::Path(p) = cur else {
                    return None;
                };
                let Some(Binding::Records(s)) =
                    p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
                else {
                    return None;
                };
                let rank = self.arrays.get(self.record_slices[s].leaves[0]).rank();
                if indices.len() != rank {
                    let name = self.record_slices[s].name.clone();
                    self.err(
                        span,
                        format!(
                            "`{name}` has {rank} dimension(s) but is indexed with {} index(es)",
                            indices.len()
                        ),
                    );
                    return None;
                }
                let mut index = Vec::new();
                for ix in indices {
                    if let syn::Expr::Range(r) = ix {
                        self.err(
                            r.src(),
                            "sub-slices of an array of structs are not supported yet; index single elements",
                        );
                        return None;
                    }
                    let i = self.value_or_none(ix, out)?;
                    index.push(self.stable(i, ix.src(), out));
                }
                Some(Ref {
                    ty: self.slice_element_type(s),
                    range: 0..self.record_slices[s].leaves.len(),
                    source: Source::Elem(s, index),
                    dynamic: Vec::new(),
                    span,
                })
            }
            syn::Expr::Field(f) => {
                let base = self.record_ref(&f.base, out)?;
                let rec = match base.ty {
                    FieldType::Record(rec) => rec,
                    FieldType::Scalar(_) => {
                        self.err(
                            f.member.src(),
                            "this field is a scalar, which has no fields",
                        );
                        return None;
                    }
                    FieldType::Array(..) => {
                        self.err(
                            f.member.src(),
                            "this is an array field; index it (`[0]`) to reach a struct's fields",
                        );
                        return None;
                    }
                };
                let syn::Member::Named(name) = &f.member else {
                    self.err(
                        f.member.src(),
                        "struct fields are read by name (`p.x`); tuple structs are not supported",
                    );
                    return None;
                };
                let Some((ty, sub)) = field_leaves(&self.records, rec, &name.to_string()) else {
                    let rname = self.records[rec].name.clone();
                    let names: Vec<String> = self.records[rec]
                        .fields
                        .iter()
                        .map(|f| format!("`{}`", f.name))
                        .collect();
                    self.cx.push(
                        Diagnostic::new(
                            name.src(),
                            format!("no field `{name}` on struct `{rname}`"),
                        )
                        .note(format!("its fields are {}", names.join(", "))),
                    );
                    return None;
                };
                let start = base.range.start;
                Some(Ref {
                    ty,
                    range: start + sub.start..start + sub.end,
                    source: base.source,
                    dynamic: base.dynamic,
                    span,
                })
            }
            syn::Expr::Struct(_) | syn::Expr::Call(_) | syn::Expr::MethodCall(_) => {
                self.err(
                    span,
                    "this struct is a value, not a variable or an element in memory: bind it first (`let p = ..;`)",
                );
                None
            }
            _ => None,
        }
    }

    /// The read of leaf `leaf` of a struct place.
    pub(super) fn read_leaf(&mut self, source: &Source, leaf: usize, span: Span) -> Handle<Expr> {
        match source {
            Source::Var(v) => {
                let l = self.record_values[*v].leaves[leaf];
                self.expr(Expr::Local(l), span)
            }
            Source::Elem(s, index) => {
                let array = self.record_slices[*s].leaves[leaf];
                let index = index.iter().map(|i| self.again(*i)).collect();
                self.expr(Expr::Load { array, index }, span)
            }
        }
    }

    /// The place of leaf `leaf` of a struct place, if it may be assigned (else reported).
    pub(super) fn write_leaf(&mut self, source: &Source, leaf: usize, span: Span) -> Option<Place> {
        match source {
            Source::Var(v) => {
                let r = &self.record_values[*v];
                if !r.mutable {
                    let name = r.name.clone();
                    self.cx.push(
                        Diagnostic::new(
                            span,
                            format!("cannot assign to a field of `{name}`, as `{name}` is not declared as mutable"),
                        )
                        .note(format!("declare it `let mut {name}`")),
                    );
                    return None;
                }
                Some(Place::Local(r.leaves[leaf]))
            }
            Source::Elem(s, index) => {
                let r = &self.record_slices[*s];
                if !r.mutable {
                    let name = r.name.clone();
                    let rec = self.records[r.record].name.clone();
                    self.cx.push(
                        Diagnostic::new(
                            span,
                            format!("cannot assign to `{name}[..]`: `{name}` is a `&[{rec}]`, which is read-only"),
                        )
                        .note(format!("declare the parameter `{name}: &mut [{rec}]`")),
                    );
                    return None;
                }
                let array = r.leaves[leaf];
                if matches!(self.arrays.get(array).kind, ArrayKind::Shared { .. }) {
                    for f in &mut self.calls {
                        f.wrote_shared = true;
                    }
                }
                let index = index.iter().map(|i| self.again(*i)).collect();
                Some(Place::Element { array, index })
            }
        }
    }

    /// A field read in value position (`p.x`, `ps[i].pos.y`, `p.pos[k]`), or `None` if `e` is
    /// not a struct's field or an element of one.
    pub(super) fn lower_record_field(&mut self, e: &syn::Expr, out: &mut Block) -> Option<Value> {
        match strip_parens(e) {
            syn::Expr::Field(f) if self.is_record_syntax(&f.base) => {}
            syn::Expr::Index(_) if self.indexes_array_field(e) => {}
            _ => return None,
        }
        let (ty, value) = if self.is_record_place(e) {
            let Some(r) = self.record_ref(e, out) else {
                return Some(Value::Error);
            };
            let value =
                matches!(r.ty, FieldType::Scalar(_)).then(|| self.read_at(&r, r.range.start));
            (r.ty, value)
        } else {
            // `P { .. }.x`, `f(p).pos[1]`: a part of a value.
            let Some((ty, leaves)) = self.lower_record_part(e, out) else {
                return Some(Value::Error);
            };
            (ty, leaves.first().copied())
        };
        let span = e.src();
        match &ty {
            FieldType::Scalar(_) => Some(value.map_or(Value::Error, Value::Expr)),
            FieldType::Record(rec) => {
                let name = self.records[*rec].name.clone();
                self.err(
                    span,
                    format!("this is a `{name}`, which is used whole only in `let`, assignments and struct literals; read its fields (`.{}`)", self.records[*rec].fields[0].name),
                );
                Some(Value::Error)
            }
            FieldType::Array(..) => {
                self.err(
                    span,
                    "this is an array field, which is used whole only in `let`, assignments, struct literals and `for` loops; index it (`[0]`)",
                );
                Some(Value::Error)
            }
        }
    }

    /// `place = value` or `place op= value` where the place is a scalar field of a struct or
    /// an element of an array field (`p.x = ..`, `ps[i].v += ..`, `p.pos[k] = ..`): `false`
    /// when it is not one.
    pub(super) fn try_record_field_assign(
        &mut self,
        left: &syn::Expr,
        op: Option<BinaryOp>,
        right: &syn::Expr,
        span: Span,
        out: &mut Block,
    ) -> bool {
        match strip_parens(left) {
            syn::Expr::Field(f) if self.is_record_syntax(&f.base) => {}
            syn::Expr::Index(_) if self.indexes_array_field(left) => {}
            _ => return false,
        }
        // As Rust: the value first, then the place. Where a computed index chooses the place,
        // the value is held first, so the index is read (and checked) after it.
        let Value::Expr(v) = self.lower_value(right, out) else {
            return true;
        };
        let v = if self.has_computed_field_index(left) {
            self.frozen("value", v, span, out)
        } else {
            v
        };
        let Some(r) = self.record_ref(left, out) else {
            return true;
        };
        if !matches!(r.ty, FieldType::Scalar(_)) {
            self.err(
                r.span,
                "assign a struct or array whole with `=`; compound assignment needs a scalar",
            );
            return true;
        }
        if r.dynamic.is_empty() {
            if let Some(place) = self.write_leaf(&r.source, r.range.start, r.span) {
                out.push(
                    Stmt::Assign {
                        place,
                        op,
                        value: v,
                    },
                    span,
                );
            }
            return true;
        }
        self.assign_at(&r, r.range.start, op, v, out);
        true
    }

    /// Whether struct syntax `e` has struct type (not a scalar field: `p.x` is a scalar).
    pub(super) fn names_a_record(&self, e: &syn::Expr) -> bool {
        match strip_parens(e) {
            syn::Expr::Field(_) | syn::Expr::Index(_) => {
                matches!(self.field_type_of(e), Some(FieldType::Record(_)))
            }
            _ => true,
        }
    }

    /// The struct type of struct syntax, without lowering it.
    pub(super) fn record_type_of(&self, e: &syn::Expr) -> Option<usize> {
        match self.field_type_of(e)? {
            FieldType::Record(r) => Some(r),
            _ => None,
        }
    }

    /// The type of struct syntax (a struct, or a field or element of one), without lowering
    /// it.
    pub(super) fn field_type_of(&self, e: &syn::Expr) -> Option<FieldType> {
        match strip_parens(e) {
            syn::Expr::Path(p) => match p
                .path
                .get_ident()
                .and_then(|i| self.lookup(&i.to_string()))?
            {
                Binding::Record(v) => Some(FieldType::Record(self.record_values[v].record)),
                _ => None,
            },
            syn::Expr::Index(ix) if self.indexes_array_field(e) => {
                match self.field_type_of(&ix.expr)? {
                    FieldType::Array(elem, _) => Some(*elem),
                    _ => None,
                }
            }
            syn::Expr::Index(_) => match self.indexed_records(e)? {
                Binding::Records(s) => Some(self.slice_element_type(s)),
                _ => None,
            },
            syn::Expr::Struct(s) => {
                let id = s.path.get_ident()?.to_string();
                self.records
                    .iter()
                    .position(|r| r.name == id)
                    .map(FieldType::Record)
            }
            syn::Expr::Field(f) => {
                let FieldType::Record(rec) = self.field_type_of(&f.base)? else {
                    return None;
                };
                let syn::Member::Named(name) = &f.member else {
                    return None;
                };
                Some(field_leaves(&self.records, rec, &name.to_string())?.0)
            }
            _ => None,
        }
    }

    /// The error for a struct variable or slice of structs used where a scalar is needed.
    pub(super) fn record_misuse(&mut self, name: &str, span: Span) {
        self.err(
            span,
            format!("`{name}` is a struct (or a slice of them); use its fields (`{name}.x`, `{name}[i].x`), or copy it whole with `let` or `=`"),
        );
    }
}
