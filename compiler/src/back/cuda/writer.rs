//! The writer's state and its output: C lines, each with the Rust location it stands for.
//!
//! Takes a checked kernel and the variant's options; gives a [`Writer`] that the other modules
//! of the CUDA writer extend with `impl Writer` blocks (statements, expressions, checks, the
//! header), and that renders its lines into text. This module imports only leaf modules, so it
//! is the one every other part may depend on without a circle.
//!
//! Design: [`Writer::line`] and [`Writer::map_to`] do not decide where `#line` directives
//! go; they record the lines and the locations in order ([`Out`]). [`render`] replays that
//! record through one small state machine, the only place that places directives. So text can
//! be written out of order (the body before the signature, which depends on whether the body
//! has fault sites) and spliced, and the directives come out as if it had been written in
//! order. Guarantees: every C line of a statement maps to the statement's Rust line, a
//! directive is written only where the mapping would otherwise be wrong, and closing braces
//! never get one of their own.

use super::helpers::Helpers;
use super::syntax::escape_c_string;
use super::FaultSite;
use crate::back::namer::{c_member_name, Namer};
use crate::ir::{
    leaves, Array, ArrayKind, FieldType, Handle, Kernel, Label, Local, Span, Step, Types,
};
use std::fmt::Write as _;

/// The loop a `break` or `continue` without a `goto` leaves.
pub(super) struct LoopCtx {
    /// The loop's label, if it has one.
    pub(super) label: Option<Handle<Label>>,
    /// For a `for` over a range of literals whose variable the body cannot change: the
    /// variable and the least and greatest values it takes (an index by it is in bounds of
    /// an array at least that long).
    pub(super) var_range: Option<(Handle<Local>, i128, i128)>,
}

/// What the writer records, in output order; [`render`] turns it into text.
pub(super) enum Out {
    /// The next C lines stand for Rust line `line` of `file` (`None`: the kernel's file).
    Map {
        /// The Rust line, from 1.
        line: usize,
        /// The Rust file when it is not the kernel's (an inlined helper from another file).
        file: Option<String>,
    },
    /// The next C lines continue the last one: no directive before them.
    Unmap,
    /// A C line, without its newline.
    Line {
        /// Levels of indentation (four spaces each).
        indent: usize,
        /// The text.
        text: String,
    },
}

/// One warpgroup multiply helper a kernel uses: `(n, PTX input, b_kn, a_regs)` (see the
/// `wgmma` module).
pub(super) type WgmmaHelper = (u16, &'static str, bool, bool);

/// The state of writing one kernel variant.
pub(super) struct Writer<'a> {
    /// The kernel.
    pub(super) k: &'a Kernel,
    /// Its types.
    pub(super) types: &'a Types,
    /// The recorded output.
    pub(super) out: Vec<Out>,
    /// The indentation of the next line.
    pub(super) indent: usize,
    /// The Rust file of the kernel, as given.
    pub(super) rust_file: String,
    /// The C names of the locals, by handle.
    pub(super) local_names: Vec<String>,
    /// The C names of the arrays, by handle.
    pub(super) array_names: Vec<String>,
    /// The C names of the arrays' length variables, by handle (empty for fixed-size arrays).
    pub(super) len_names: Vec<String>,
    /// For an array that is a field of a `&[P]` parameter, the field's path after the index
    /// (`.pos.x`); empty for other arrays.
    pub(super) field_suffixes: Vec<String>,
    /// For a fixed shared or thread-local array whose rows are `[T; N]` of a vector record
    /// the kernel has (`f32x4`, from a `&[[f32; 4]]` parameter): the record. The
    /// array is declared as an array of the records (`__shared__ f32x4 tile[256];`, a local
    /// `f32x4 v;`), an element is `tile[t].v[j]`, and a whole row is one value to copy, so
    /// that loads and stores of it stay single 16-byte accesses through NVCC's scheduling
    /// (see [`super::vector_loads`]).
    pub(super) rows: Vec<Option<usize>>,
    /// By array index: a tile of a warpgroup multiply, laid out in the 128-byte swizzle
    /// ([`Kernel::swizzled_arrays`]): every index of its rows goes through
    /// `cuphase::swizzle128`.
    pub(super) swizzled: Vec<bool>,
    /// The kernel multiplies by warpgroups ([`Kernel::uses_wgmma`]): its prelude, `sm_90a`
    /// marker and proxy fences.
    pub(super) wgmma: bool,
    /// The warpgroup multiplies the kernel makes (their helpers are written).
    pub(super) wgmma_shapes: std::collections::BTreeSet<WgmmaHelper>,
    /// Only warpgroup multiplies (and statements that touch no thread-local array) have run
    /// since the last `wgmma.fence`: the next multiply needs none.
    pub(super) wgmma_fenced: bool,
    /// The loop being written is a loop of multiplies, fenced before it.
    pub(super) wgmma_loop: bool,
    /// Hands out the names of temporaries.
    pub(super) namer: Namer,
    /// The Rust-semantics helpers called so far.
    pub(super) helpers: Helpers,
    /// The math library's functions called so far (`exp_f32`).
    pub(super) math: std::collections::BTreeSet<String>,
    /// The loops around the statement being written, innermost last.
    pub(super) loops: Vec<LoopCtx>,
    /// Index every access (bounds checks).
    pub(super) checks: bool,
    /// The kernel has the fault record parameters (known once the body is written).
    pub(super) uses_record: bool,
    /// The kernel uses warp operations (their helpers are written).
    pub(super) uses_warp: bool,
    /// The kernel multiplies matrix fragments (`mma_*`).
    pub(super) uses_mma: bool,
    /// The fragment loads the kernel makes (`ldmatrix`): their helpers are written.
    pub(super) matrix_loads: std::collections::BTreeSet<(usize, usize, bool)>,
    /// The kernel copies into shared memory asynchronously (the `cp.async` prelude).
    pub(super) uses_async_copy: bool,
    /// The kernel reads `lane_id()` (its helper is written).
    pub(super) uses_lane: bool,
    /// The loop being written is inside one that `#pragma unroll` unrolls whole.
    pub(super) in_unrolled: bool,
    /// The variant for blocks that are whole warps.
    pub(super) full_warps: bool,
    /// The kernel has a dynamic shared array.
    pub(super) uses_dynamic_shared: bool,
    /// The kernel computes with `f16` or `bf16`.
    pub(super) uses_half: bool,
    /// The fault sites registered so far, numbered by position.
    pub(super) sites: Vec<FaultSite>,
    /// The statement being written evaluates a check inline.
    pub(super) inline_check: bool,
    /// The locals some statement reads (the others are marked used where declared, so
    /// that NVRTC does not warn about them).
    pub(super) read: Vec<bool>,
    /// For a kernel with const generic parameters, the kernel of one instance (see
    /// [`super::CudaKernel::instance`]); empty otherwise.
    pub(super) instance: String,
}

impl<'a> Writer<'a> {
    /// A writer for `k`, whose `#line` directives name `file`; `checks` turns bounds checks on
    /// and `full_warps` picks the variant for blocks of whole warps.
    pub(super) fn new(
        k: &'a Kernel,
        types: &'a Types,
        file: &str,
        checks: bool,
        full_warps: bool,
    ) -> Self {
        let mut namer = Namer::new();
        let _ = namer.call(&k.name);
        let mut array_names: Vec<String> = Vec::new();
        let mut len_names: Vec<String> = Vec::new();
        let mut field_suffixes = Vec::new();
        for (_, a) in k.arrays.iter() {
            // The fields of one `&[P]` parameter: its name and length, then `.x` after the
            // index.
            if let Some(f) = &a.field {
                let path = leaves(&k.records, f.record)
                    .get(f.leaf)
                    .map(|l| {
                        l.path
                            .iter()
                            .map(|s| match s {
                                Step::Field { name, .. } => format!(".{}", c_member_name(name)),
                                Step::Element(k) => format!("[{k}]"),
                            })
                            .collect::<String>()
                    })
                    .unwrap_or_default();
                field_suffixes.push(path);
                if f.leaf > 0 {
                    if let (Some(n), Some(l)) = (array_names.last(), len_names.last()) {
                        let (n, l) = (n.clone(), l.clone());
                        array_names.push(n);
                        len_names.push(l);
                        continue;
                    }
                }
                array_names.push(namer.call(&f.base));
                len_names.push(namer.call(&format!("{}_len", f.base)));
                continue;
            }
            field_suffixes.push(String::new());
            // (A shared array of structs is one array per field: `tile.pos.x`.)
            array_names.push(namer.call(&a.ident()));
            len_names.push(match a.kind {
                ArrayKind::Global { .. } | ArrayKind::Shared { dynamic: true, .. } => {
                    namer.call(&format!("{}_len", a.name))
                }
                ArrayKind::Shared { .. } | ArrayKind::Local { .. } => String::new(),
            });
        }
        let local_names = k.locals.iter().map(|(_, l)| namer.call(&l.name)).collect();
        let rows = k.arrays.iter().map(|(_, a)| row_record(k, a)).collect();
        Writer {
            k,
            types,
            rust_file: file.to_string(),
            out: Vec::new(),
            indent: 0,
            local_names,
            array_names,
            len_names,
            field_suffixes,
            rows,
            swizzled: k.swizzled_arrays(),
            wgmma: k.uses_wgmma(),
            wgmma_shapes: std::collections::BTreeSet::new(),
            wgmma_fenced: false,
            wgmma_loop: false,
            namer,
            helpers: Helpers::new(),
            math: std::collections::BTreeSet::new(),
            loops: Vec::new(),
            checks,
            uses_record: false,
            uses_warp: false,
            uses_mma: false,
            matrix_loads: std::collections::BTreeSet::new(),
            uses_async_copy: false,
            full_warps,
            uses_dynamic_shared: false,
            uses_half: false,
            sites: Vec::new(),
            inline_check: false,
            read: read_in_c(k),
            instance: String::new(),
            uses_lane: false,
            in_unrolled: false,
        }
    }

    /// Writes a line at the current indentation.
    pub(super) fn line(&mut self, text: &str) {
        self.out.push(Out::Line {
            indent: self.indent,
            text: text.to_string(),
        });
    }

    /// Maps the next C lines to the Rust line of `span` (nothing when the span knows no line).
    pub(super) fn map_to(&mut self, span: Span) {
        let line = span.start().line;
        if line > 0 {
            let file = span.file_or(&self.rust_file);
            let file = (file != self.rust_file).then_some(file);
            self.out.push(Out::Map { line, file });
        }
    }

    /// The next C lines continue the last one (a signature's parameter lines).
    pub(super) fn unmap(&mut self) {
        self.out.push(Out::Unmap);
    }

    /// The C name of a local.
    pub(super) fn local_name(&self, l: Handle<Local>) -> &str {
        &self.local_names[l.index()]
    }

    /// The C name of a loop label (made unique by its handle).
    pub(super) fn label_name(&self, l: Handle<Label>) -> String {
        format!("{}_{}", self.k.labels.get(l).name, l.index())
    }
}

/// The vector record (its index in [`Kernel::records`]) that a row of `a` is (see
/// [`Writer::rows`]).
fn row_record(k: &Kernel, a: &Array) -> Option<usize> {
    let dims = match &a.kind {
        ArrayKind::Shared {
            dims,
            dynamic: false,
            ..
        }
        | ArrayKind::Local { dims, .. } => dims,
        _ => return None,
    };
    let n = *dims.last()?;
    let row = FieldType::Array(Box::new(FieldType::Scalar(a.elem)), n);
    k.records
        .iter()
        .position(|r| r.vector && r.fields.first().is_some_and(|f| f.ty == row))
}

/// The text of recorded output, with `#line` directives naming `kernel_file` (or an inlined
/// helper's file). Directives count lines from where they stand, so the result can follow
/// any header.
pub(super) fn render(out: &[Out], kernel_file: &str) -> String {
    let kernel_file = escape_c_string(kernel_file);
    let mut text = String::new();
    // The Rust line the next emitted C line maps to, if known.
    let mut mapped: Option<usize> = None;
    // The Rust line of the statement being written.
    let mut stmt_line: Option<usize> = None;
    // The file of the statement being written, when it is not the kernel's, and so the file
    // the last directive named.
    let mut stmt_file: Option<String> = None;
    for o in out {
        match o {
            Out::Map { line, file } => {
                if *file != stmt_file {
                    // Another file: the next line needs its own directive.
                    mapped = None;
                    stmt_file.clone_from(file);
                }
                stmt_line = Some(*line);
            }
            Out::Unmap => stmt_line = None,
            Out::Line { indent, text: line } => {
                // Every C line of a statement maps to the statement's Rust line, so an NVRTC
                // message about any of them names it; closing braces keep whatever mapping
                // they get.
                if let Some(l) = stmt_line {
                    if mapped != Some(l) && !line.trim_start().starts_with('}') {
                        let file = match &stmt_file {
                            Some(f) => escape_c_string(f),
                            None => kernel_file.clone(),
                        };
                        let _ = writeln!(text, "#line {l} \"{file}\"");
                        mapped = Some(l);
                    }
                }
                for _ in 0..*indent {
                    text.push_str("    ");
                }
                text.push_str(line);
                text.push('\n');
                if let Some(m) = mapped.as_mut() {
                    *m += 1;
                }
            }
        }
    }
    text
}

/// Which locals the C reads: those an expression reads, and those a checked compound
/// assignment (`/=`, `%=`, a shift) updates, which keeps its check and so its variable.
fn read_in_c(k: &Kernel) -> Vec<bool> {
    let mut read = crate::ir::visit::read_locals(k);
    crate::ir::visit::for_each_stmt(&k.body, false, &mut |s, _| {
        if let crate::ir::Stmt::Assign {
            place: crate::ir::Place::Local(l),
            op: Some(op),
            ..
        } = s
        {
            if op.is_shift() || matches!(op, crate::ir::BinaryOp::Div | crate::ir::BinaryOp::Rem) {
                if let Some(r) = read.get_mut(l.index()) {
                    *r = true;
                }
            }
        }
    });
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(indent: usize, text: &str) -> Out {
        Out::Line {
            indent,
            text: text.into(),
        }
    }

    fn map(line: usize) -> Out {
        Out::Map { line, file: None }
    }

    #[test]
    fn directives_go_only_where_the_mapping_would_be_wrong() {
        let out = [
            map(3),
            line(0, "f(a,"),
            Out::Unmap,
            line(0, "  b) {"),
            map(5),
            line(1, "x;"),
            map(6),
            line(1, "y;"),
            line(1, "z;"),
            line(0, "}"),
            Out::Map {
                line: 2,
                file: Some("h.rs".into()),
            },
            line(1, "w;"),
        ];
        assert_eq!(
            render(&out, "k\".rs"),
            "#line 3 \"k_.rs\"\nf(a,\n  b) {\n    x;\n    y;\n\
             #line 6 \"k_.rs\"\n    z;\n}\n#line 2 \"h.rs\"\n    w;\n"
        );
    }

    #[test]
    fn lines_recorded_out_of_order_render_as_if_written_in_order() {
        // The body is recorded before the signature; splicing the records gives the text
        // that writing them in order gives.
        let head = [map(1), line(0, "void k() {")];
        let body = [map(2), line(1, "x;")];
        let spliced: Vec<Out> = head.into_iter().chain(body).collect();
        assert_eq!(
            render(&spliced, "k.rs"),
            "#line 1 \"k.rs\"\nvoid k() {\n    x;\n"
        );
    }
}
