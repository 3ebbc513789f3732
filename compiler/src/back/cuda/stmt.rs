//! Statements, and the kernel around them: the signature, the arrays it declares, the body.
//!
//! Takes the writer and the kernel's blocks; gives their C lines, in program order, each
//! mapped to its statement's Rust line. Guarantees: a loop's range is evaluated once, as in
//! Rust (a bound that may change becomes a variable); a labelled `break`/`continue` from a
//! nested loop becomes a `goto` to a label placed so that no jump enters a declaration's
//! scope; a statement whose expressions checked something inline stops the thread when the
//! check fired.
//!
//! The body is written before the signature: whether it registered a fault site decides
//! whether the kernel takes the fault record (see [`super::writer`] for why the `#line`
//! directives still come out as if written in order).

use super::checks::FAULTS;
use super::syntax::{c_type, is_narrow, prec};
use super::writer::{LoopCtx, Writer};
use super::FaultKind;
use crate::ir::visit;
use crate::ir::*;

impl Writer<'_> {
    /// Writes the kernel: its body, then (knowing whether the body has fault sites) the
    /// signature and the declarations before the body.
    pub(super) fn write(&mut self) {
        let k = self.k;
        self.indent = 1;
        self.block_body(&k.body);
        let body = std::mem::take(&mut self.out);
        self.uses_record = !self.sites.is_empty();
        self.indent = 0;
        self.signature();
        self.indent = 1;
        self.declarations();
        self.out.extend(body);
        self.indent = 0;
        self.line("}");
    }

    /// `extern "C" __global__ void name(params) {`, on one line when it fits in 100 columns.
    /// A kernel with const generic parameters is a function template instead,
    /// `template <unsigned int N> __device__ __forceinline__ void name_body(params) {`, and
    /// [`Writer::instance`] the kernel the runtime appends per value (see
    /// [`super::CudaKernel::instance`]).
    fn signature(&mut self) {
        let k = self.k;
        let mut params = Vec::new();
        let mut args = Vec::new();
        let mut template = Vec::new();
        for p in &k.params {
            match p.kind {
                ParamKind::Scalar { local, ty } if p.source == ParamSource::ConstGeneric => {
                    template.push(format!("{} {}", c_type(ty), self.local_name(local)));
                }
                ParamKind::Scalar { local, ty } => {
                    params.push(format!("{} {}", c_type(ty), self.local_name(local)));
                    args.push(self.local_name(local).to_string());
                }
                ParamKind::Slice { array } => {
                    let a = k.arrays.get(array);
                    let constness = match a.kind {
                        ArrayKind::Global { mutable: false } => "const ",
                        _ => "",
                    };
                    // A slice of structs is one parameter of the struct's type.
                    let elem = match &a.field {
                        Some(f) => crate::back::namer::c_member_name(&k.records[f.record].name),
                        None => c_type(a.elem).to_string(),
                    };
                    params.push(format!(
                        "{constness}{elem}* __restrict__ {}",
                        self.array_names[array.index()]
                    ));
                    params.push(format!(
                        "unsigned long long {}",
                        self.len_names[array.index()]
                    ));
                    args.push(self.array_names[array.index()].clone());
                    args.push(self.len_names[array.index()].clone());
                }
            }
        }
        if self.uses_record {
            params.push("unsigned int* __restrict__ cuphase_record".into());
            params.push("unsigned int cuphase_kernel".into());
            args.push("cuphase_record".into());
            args.push("cuphase_kernel".into());
        }
        if super::prints(k) {
            params.push("unsigned int cuphase_print_ids".into());
            args.push("cuphase_print_ids".into());
        }
        // A declared block shape bounds the threads too (the register allocator uses it).
        let bounds = k
            .options
            .launch_bounds
            .or(k.options.block.map(|[x, y, z]| x * y * z))
            .map(|n| match k.options.min_blocks_per_sm {
                Some((m, _)) => format!("__launch_bounds__({n}, {m}) "),
                None => format!("__launch_bounds__({n}) "),
            })
            .unwrap_or_default();
        self.map_to(k.name_span);
        let head = if template.is_empty() {
            format!("extern \"C\" __global__ void {bounds}{}", k.name)
        } else {
            let body = self.namer.call(&format!("{}_body", k.name));
            let values: Vec<String> = (0..template.len()).map(|i| format!("${i}$")).collect();
            self.instance = format!(
                "\n// The kernel for one value of each const parameter, appended at launch.\nextern \"C\" __global__ void {bounds}{}({}) {{\n    {body}<{}>({});\n}}\n",
                k.name,
                params.join(", "),
                values.join(", "),
                args.join(", ")
            );
            // One `#line` for the signature, after the template's line.
            self.unmap();
            self.line(&format!("template <{}>", template.join(", ")));
            self.map_to(k.name_span);
            format!("__device__ __forceinline__ void {body}")
        };
        let one_line = format!("{head}({}) {{", params.join(", "));
        if one_line.len() <= 100 {
            self.line(&one_line);
        } else {
            self.line(&format!("{head}("));
            // The parameter lines follow the signature's first line: no `#line` between them.
            self.unmap();
            let n = params.len();
            for (i, p) in params.iter().enumerate() {
                let sep = if i + 1 < n { "," } else { ") {" };
                self.line(&format!("    {p}{sep}"));
            }
        }
    }

    /// The statements of a block, at the current indentation.
    fn block_body(&mut self, b: &Block) {
        let mut skip = 0;
        for (i, (stmt, span)) in b.iter().enumerate() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            self.inline_check = false;
            let (rest, spans) = (&b.stmts[i..], &b.spans[i..]);
            if let Some(n) = self
                .row_copy(rest, spans)
                .or_else(|| self.vector_load(rest, spans))
            {
                skip = n - 1;
                continue;
            }
            self.stmt(stmt, span);
            // A check inside the statement's expressions recorded a fault: stop this thread.
            if self.inline_check && !matches!(stmt, Stmt::Loop { .. } | Stmt::If { .. }) {
                self.line(&format!("if ({FAULTS}.hit) return;"));
            }
            self.inline_check = false;
        }
    }

    /// The statements of a block, one level deeper.
    fn braced(&mut self, b: &Block) {
        // A nested block may run after anything (an `if`'s second arm is written after its
        // first): it starts unfenced, except the body of a loop of multiplies, fenced before it.
        if !self.wgmma_loop {
            self.wgmma_fenced = false;
        }
        self.indent += 1;
        self.block_body(b);
        self.indent -= 1;
    }

    /// One statement.
    fn stmt(&mut self, s: &Stmt, span: Span) {
        // A statement that may touch an accumulator ends the run of fenced multiplies; a loop of
        // multiplies is fenced before it (see `super::wgmma`).
        let fenced = std::mem::replace(&mut self.wgmma_fenced, false);
        if fenced && super::wgmma::keeps_fence(self.k, s) {
            self.wgmma_fenced = true;
        }
        let multiply_loop =
            matches!(s, Stmt::Loop { body, .. } if super::wgmma::only_multiplies(self.k, body));
        if multiply_loop {
            if !fenced {
                self.map_to(span);
                self.line("cuphase::wgmma_fence();");
            }
            self.wgmma_fenced = true;
        }
        let outer_loop = std::mem::replace(&mut self.wgmma_loop, multiply_loop);
        self.stmt_kind(s, span, fenced);
        self.wgmma_loop = outer_loop;
        // After a compound statement, which of its blocks ran last is not known here.
        if matches!(s, Stmt::If { .. } | Stmt::Block(_) | Stmt::Loop { .. }) && !multiply_loop {
            self.wgmma_fenced = false;
        }
    }

    /// One statement, its kind's part (`fenced`: the accumulators were fenced before it).
    fn stmt_kind(&mut self, s: &Stmt, span: Span, fenced: bool) {
        match s {
            Stmt::Let { local, init } => {
                let t = self.types.local(*local);
                let name = self.local_name(*local).to_string();
                let l = self.k.locals.get(*local);
                self.map_to(span);
                match init {
                    Some(e) => {
                        let v = self.expr(*e);
                        // A variable nothing reads is `const` whatever Rust says: its later
                        // assignments are dead (see `Stmt::Assign`).
                        let read = self.read[local.index()];
                        let constness = if l.mutable && read { "" } else { "const " };
                        self.line(&format!("{constness}{} {name} = {};", c_type(t), v.text));
                        // (Read by nothing: an argument an inlined helper ignores, a field of
                        // a struct copy that is never used.)
                        if !read {
                            self.line(&format!("(void){name};"));
                        }
                    }
                    // (Assigned later; if nothing reads it, neither it nor its assignments
                    // are written.)
                    None if !self.read[local.index()] => {}
                    None => self.line(&format!("{} {name};", c_type(t))),
                }
            }
            Stmt::Assign { place, op, value } => {
                self.map_to(span);
                if let Place::Element { array, index } = place {
                    let index = index.clone();
                    self.guard_element(*array, &index, span);
                }
                // A store to a variable nothing reads: only the value's evaluation (its
                // checks) remains; `/=` and `%=` keep their own checks, and shifts theirs.
                let checked_op =
                    op.is_some_and(|o| o.is_shift() || matches!(o, BinaryOp::Div | BinaryOp::Rem));
                if let (Place::Local(l), false) = (place, checked_op) {
                    if !self.read[l.index()] {
                        let v = self.expr(*value);
                        self.line(&format!("(void)({});", v.text));
                        return;
                    }
                }
                let target = self.place(place);
                let v = self.expr(*value);
                let line = match op {
                    None => format!("{} = {};", target.text, v.text),
                    Some(op) => {
                        let t = self.types.expr(*value);
                        let lt = match place {
                            Place::Local(l) => self.types.local(*l),
                            Place::Element { array, .. } => self.k.arrays.get(*array).elem,
                        };
                        let t = if op.is_shift() { lt } else { t };
                        if let Some(call) =
                            self.checked_division(*op, lt, *value, &target, &v, span)
                        {
                            format!("{} = {};", target.text, call.text)
                        } else if self.plain_compound(*op, t) {
                            let rhs = if op.is_shift() {
                                self.shift_amount(v, self.types.expr(*value), lt)
                            } else {
                                v.text
                            };
                            format!("{} {}= {};", target.text, op.symbol(), rhs)
                        } else {
                            let r =
                                self.binary(*op, lt, self.types.expr(*value), target.clone(), v);
                            format!("{} = {};", target.text, r.text)
                        }
                    }
                };
                self.line(&line);
            }
            Stmt::If {
                cond,
                accept,
                reject,
            } => {
                self.map_to(span);
                let c = self.expr(*cond);
                self.line(&format!("if ({}) {{", c.text));
                self.if_tail(accept, reject);
            }
            Stmt::Loop { label, kind, body } => self.loop_stmt(*label, kind, body, span),
            Stmt::Break { label } => {
                self.map_to(span);
                let text = self.jump("break", *label);
                self.line(&text);
            }
            Stmt::Continue { label } => {
                self.map_to(span);
                let text = self.jump("continue", *label);
                self.line(&text);
            }
            Stmt::Return => {
                self.map_to(span);
                self.line("return;");
            }
            Stmt::Barrier { .. } => {
                self.map_to(span);
                // What this thread wrote to shared memory, ordered before the warpgroup
                // multiplies' reads (the async proxy) that the barrier lets run.
                if self.wgmma {
                    self.line("cuphase::fence_proxy_async();");
                }
                self.line("__syncthreads();");
            }
            Stmt::Wgmma {
                shape,
                acc,
                a,
                b,
                b_row,
            } => {
                self.map_to(span);
                if !fenced {
                    self.line("cuphase::wgmma_fence();");
                }
                self.wgmma(*shape, acc, a, (*b, *b_row), span);
                self.wgmma_fenced = true;
            }
            Stmt::WgmmaCommit => {
                self.map_to(span);
                self.line("cuphase::wgmma_commit();");
            }
            Stmt::WgmmaWait { pending } => {
                self.map_to(span);
                self.line(&format!("cuphase::wgmma_wait<{pending}>();"));
            }
            Stmt::Fence(scope) => {
                self.map_to(span);
                self.line(match scope {
                    FenceScope::Block => "__threadfence_block();",
                    FenceScope::Device => "__threadfence();",
                    FenceScope::System => "__threadfence_system();",
                });
            }
            Stmt::Block(b) => {
                self.map_to(span);
                self.line("{");
                self.braced(b);
                self.line("}");
            }
            Stmt::Atomic {
                op,
                array,
                index,
                value,
                result,
            } => {
                self.map_to(span);
                self.guard_element(*array, &[*index], span);
                let call = self.atomic(*op, *array, *index, *value);
                match result {
                    Some(r) => {
                        let name = self.local_name(*r).to_string();
                        self.line(&format!("{name} = {call};"));
                    }
                    None => self.line(&format!("{call};")),
                }
            }
            Stmt::Eval(e) => {
                self.map_to(span);
                let v = self.expr(*e);
                self.line(&format!("(void)({});", v.text));
            }
            Stmt::Check { proved: true, .. } => {}
            Stmt::Check {
                index, len, array, ..
            } => {
                self.map_to(span);
                self.guard_index(*index, *len, array, span);
            }
            Stmt::Warp {
                op,
                value,
                lane,
                result,
            } => {
                self.map_to(span);
                self.warp(*op, *value, *lane, *result);
            }
            Stmt::Mma { shape, acc, a, b } => {
                self.map_to(span);
                self.uses_mma = true;
                let [acc, a, b] = [acc, a, b].map(|f| self.fragment(f));
                self.line(&format!(
                    "cuphase::{}({acc}, {a}, {b});",
                    super::preludes::mma_function(*shape)
                ));
            }
            Stmt::LoadMatrix {
                load,
                frag,
                tile,
                row,
            } => {
                self.map_to(span);
                self.matrix_loads
                    .insert((load.elem_bytes, load.matrices(), load.trans));
                let frag = self.fragment(frag);
                let row = self.element(*tile, &[*row]).text;
                self.line(&format!(
                    "cuphase::{}({frag}, &{row});",
                    super::preludes::matrix_load_function(load.matrices(), load.trans)
                ));
            }
            Stmt::AsyncCopy {
                dst,
                dst_index,
                src,
                ..
            } => {
                self.map_to(span);
                self.uses_async_copy = true;
                self.async_copy(*dst, dst_index, src, span);
            }
            Stmt::AsyncCommit => {
                self.map_to(span);
                self.uses_async_copy = true;
                self.line("cuphase::cp_async_commit();");
            }
            Stmt::AsyncWait { pending } => {
                self.map_to(span);
                self.uses_async_copy = true;
                self.line(&format!("cuphase::cp_async_wait<{pending}>();"));
            }
            Stmt::Panic {
                message,
                debug_only,
            } => {
                // `debug_assert!` is compiled in the debug (bounds-checked) variant only.
                if *debug_only && !self.checks {
                    return;
                }
                self.map_to(span);
                let site = self.site(FaultKind::Panic(message.clone()), span);
                self.line(&format!("cuphase::report({FAULTS}, {site}u, 0ull, 0ull);"));
                self.line("return;");
            }
            Stmt::Print { pieces, newline } => {
                self.map_to(span);
                let mut format = String::new();
                let mut args = String::new();
                for p in pieces {
                    match p {
                        PrintPiece::Text(t) => format.push_str(&t.replace('%', "%%")),
                        PrintPiece::Value { expr, spec } => {
                            let v = self.expr(*expr).text;
                            let t = self.types.expr(*expr);
                            let (conversion, arg) = printf_conversion(t, spec, v);
                            format.push_str(&conversion);
                            args.push_str(", ");
                            args.push_str(&arg);
                        }
                    }
                }
                if *newline {
                    format.push('\n');
                }
                // `Launch::print_ids`: the block and thread first, as the simulator writes them.
                let format = c_string(&format);
                self.line("if (cuphase_print_ids) {");
                self.indent += 1;
                self.line(&format!("printf(\"[block (%u, %u, %u) thread (%u, %u, %u)] \" {format}, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z{args});"));
                self.indent -= 1;
                self.line("} else {");
                self.indent += 1;
                self.line(&format!("printf({format}{args});"));
                self.indent -= 1;
                self.line("}");
            }
        }
    }

    /// A matrix fragment as the MMA functions take it (a pointer to its first element): the
    /// array, or its row; where the rows are a vector record (`bf16x8 fa[4]`, see
    /// [`super::writer::Writer::rows`]), the record's elements (`fa[i].v`).
    pub(super) fn fragment(&mut self, f: &Fragment) -> String {
        let name = self.array_names[f.array.index()].clone();
        let member = if self.lane_index(f.array).is_some() {
            ".v"
        } else {
            ""
        };
        match f.row {
            Some(r) => format!("{name}[{}]{member}", self.expr(r).text),
            None => format!("{name}{member}"),
        }
    }

    /// A warp operation: `result = op(value, lane)`, or `__syncwarp`.
    fn warp(
        &mut self,
        op: WarpOp,
        value: Option<Handle<Expr>>,
        lane: Option<Handle<Expr>>,
        result: Option<Handle<Local>>,
    ) {
        self.uses_warp = true;
        if op == WarpOp::Sync {
            self.line("__syncwarp(cuphase::warp_mask());");
            return;
        }
        let (Some(v), Some(r)) = (value, result) else {
            return;
        };
        let t = self.types.expr(v);
        let vt = self.expr(v).text;
        let name = self.local_name(r).to_string();
        let call = match op {
            WarpOp::Ballot | WarpOp::All | WarpOp::Any => {
                format!("cuphase::{}({vt})", op.name())
            }
            _ => {
                let l = lane.map(|l| self.expr(l).text).unwrap_or_default();
                // `__shfl_sync` takes 32- and 64-bit values: narrow ones travel as `int` or
                // `unsigned int`.
                if is_narrow(t) || t == Scalar::Bool || t.is_half() {
                    let wide = if t.is_unsigned_int() || t.is_half() {
                        "unsigned int"
                    } else {
                        "int"
                    };
                    format!("({})cuphase::{}(({wide}){vt}, {l})", c_type(t), op.name())
                } else {
                    format!("cuphase::{}({vt}, {l})", op.name())
                }
            }
        };
        self.line(&format!("{name} = {call};"));
    }

    /// The branches of an `if` after its first line: `else if` chains stay flat.
    fn if_tail(&mut self, accept: &Block, reject: &Block) {
        self.braced(accept);
        if reject.stmts.is_empty() {
            self.line("}");
            return;
        }
        if let (
            [Stmt::If {
                cond,
                accept: a2,
                reject: r2,
            }],
            [span],
        ) = (&reject.stmts[..], &reject.spans[..])
        {
            self.map_to(*span);
            let c = self.expr(*cond);
            self.line(&format!("}} else if ({}) {{", c.text));
            self.if_tail(a2, r2);
            return;
        }
        self.line("} else {");
        self.braced(reject);
        self.line("}");
    }

    /// `break;`/`continue;`, or a `goto` when the label is not the innermost loop's.
    fn jump(&self, word: &str, label: Option<Handle<Label>>) -> String {
        match label {
            Some(l) if self.loops.last().and_then(|c| c.label) != Some(l) => {
                format!("goto {}_{word};", self.label_name(l))
            }
            _ => format!("{word};"),
        }
    }

    /// A loop, with the labels its `goto`s jump to.
    fn loop_stmt(
        &mut self,
        label: Option<Handle<Label>>,
        kind: &LoopKind,
        body: &Block,
        span: Span,
    ) {
        let (break_used, continue_used) = match label {
            Some(l) => label_uses(body, l),
            None => (false, false),
        };
        self.map_to(span);
        if let LoopKind::For { step: Some(st), .. } = kind {
            self.guard_step(*st, span);
        }
        // Inside a loop unrolled whole, every constant loop is unrolled too: the outer loop's
        // size bound counted it unrolled, and NVCC does not always unroll it by itself (a
        // thread-local array indexed by the counter of a loop it keeps goes to local memory).
        let outermost = !self.in_unrolled && self.unrolls(kind, body);
        let inner = self.in_unrolled && self.constant_trips(kind).is_some_and(|t| t > 1);
        if outermost || inner {
            // The pragma needs no `#line` of its own; the loop's header gets one.
            self.unmap();
            self.line("#pragma unroll");
            self.map_to(span);
        }
        if outermost {
            self.in_unrolled = true;
        }
        match kind {
            LoopKind::Infinite => self.line("for (;;) {"),
            LoopKind::While { cond } => {
                let c = self.expr(*cond);
                self.line(&format!("while ({}) {{", c.text));
            }
            LoopKind::For {
                var,
                start,
                end,
                step,
                distribution,
                inclusive,
                reverse,
            } => {
                let header = match (reverse, inclusive) {
                    (None, false) => self.for_header(*var, *start, *end, *step, *distribution),
                    (None, true) => self.inclusive_header(*var, *start, *end, *step, *distribution),
                    (Some(r), _) => self.reverse_header(*var, *start, *end, *step, *inclusive, *r),
                };
                self.line(&header);
            }
        }
        let var_range = self.literal_range(kind);
        self.loops.push(LoopCtx { label, var_range });
        self.indent += 1;
        if continue_used {
            // The body gets its own scope so that `goto` never jumps into the scope of a
            // declaration.
            self.line("{");
            self.braced(body);
            self.line("}");
            if let Some(l) = label {
                let name = self.label_name(l);
                self.line(&format!("{name}_continue:;"));
            }
        } else {
            self.block_body(body);
        }
        self.indent -= 1;
        self.loops.pop();
        if outermost {
            self.in_unrolled = false;
        }
        self.line("}");
        if break_used {
            if let Some(l) = label {
                let name = self.label_name(l);
                self.line(&format!("{name}_break:;"));
            }
        }
    }

    /// The CUDA atomic call of `array.atomic_op(index, value)`; its value is the old element.
    fn atomic(
        &mut self,
        op: AtomicOp,
        array: Handle<Array>,
        index: Handle<Expr>,
        value: Handle<Expr>,
    ) -> String {
        let elem = self.k.arrays.get(array).elem;
        let place = self.element(array, &[index]).text;
        let v = self.expr(value);
        let name = match op {
            AtomicOp::Add => "atomicAdd",
            AtomicOp::Sub => "atomicSub",
            AtomicOp::Min => "atomicMin",
            AtomicOp::Max => "atomicMax",
            AtomicOp::And => "atomicAnd",
            AtomicOp::Or => "atomicOr",
            AtomicOp::Xor => "atomicXor",
            AtomicOp::Exchange => "atomicExch",
        };
        let ull = "unsigned long long";
        match (op, elem) {
            // CUDA has no 64-bit atomicSub: add the two's complement negation.
            (AtomicOp::Sub, Scalar::U64) => format!(
                "atomicAdd(&{place}, 0ull - {})",
                v.at_least(prec::ADDITIVE + 1)
            ),
            (AtomicOp::Sub, Scalar::I64) => {
                format!(
                    "(long long)atomicAdd(({ull}*)&{place}, 0ull - ({ull}){})",
                    v.at_least(prec::UNARY)
                )
            }
            // Wrapping add, bit operations and exchange on `long long` use the unsigned type.
            (
                AtomicOp::Add | AtomicOp::And | AtomicOp::Or | AtomicOp::Xor | AtomicOp::Exchange,
                Scalar::I64,
            ) => {
                format!(
                    "(long long){name}(({ull}*)&{place}, ({ull}){})",
                    v.at_least(prec::UNARY)
                )
            }
            _ => format!("{name}(&{place}, {})", v.text),
        }
    }
}

/// Whether a labelled loop's `break` and `continue` are used from a loop nested in its body
/// `body` (and so need a `goto`).
fn label_uses(body: &Block, label: Handle<Label>) -> (bool, bool) {
    let from_nested_loop = |is_jump: &dyn Fn(&Stmt) -> bool| {
        visit::any_stmt(body, |s| match s {
            Stmt::Loop { body: inner, .. } => visit::any_stmt(inner, is_jump),
            _ => false,
        })
    };
    (
        from_nested_loop(&|s| matches!(s, Stmt::Break { label: Some(l) } if *l == label)),
        from_nested_loop(&|s| matches!(s, Stmt::Continue { label: Some(l) } if *l == label)),
    )
}

/// The `printf` conversion of a value of type `t` formatted as `spec` says, and the argument
/// it takes: the same text the simulator writes (`{}` of a float is `%g`, `bool` is its word).
fn printf_conversion(t: Scalar, spec: &FormatSpec, v: String) -> (String, String) {
    let number = t != Scalar::Bool;
    let mut c = String::from("%");
    // (Rust pads numbers with zeros whatever the alignment; C's `-` would win.)
    let zero = spec.zero && number;
    if (spec.left && !zero) || (!number && !spec.right && spec.width > 0) {
        c.push('-');
    }
    if zero {
        c.push('0');
    }
    if spec.width > 0 {
        c.push_str(&spec.width.to_string());
    }
    let arg = match t {
        Scalar::Bool => {
            c.push('s');
            format!("({v}) ? \"true\" : \"false\"")
        }
        Scalar::I8 | Scalar::I16 | Scalar::I32 => {
            c.push('d');
            v
        }
        Scalar::U8 | Scalar::U16 | Scalar::U32 => {
            c.push('u');
            v
        }
        Scalar::I64 => {
            c.push_str("lld");
            v
        }
        Scalar::U64 | Scalar::Usize => {
            c.push_str("llu");
            v
        }
        Scalar::F32 | Scalar::F64 | Scalar::F16 | Scalar::Bf16 => {
            match spec.precision {
                Some(p) => c.push_str(&format!(".{p}f")),
                None => c.push('g'),
            }
            match t {
                Scalar::F16 => format!("cuphase::f16_to_f32({v})"),
                Scalar::Bf16 => format!("cuphase::bf16_to_f32({v})"),
                _ => v,
            }
        }
    };
    (c, arg)
}

/// `s` as a C string literal.
fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            // (Three octal digits: an escape that cannot run into the next character.)
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}
