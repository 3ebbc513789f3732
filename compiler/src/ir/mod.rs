//! The kernel IR.
//!
//! A [`Kernel`] is what the front end makes of one `#[kernel] fn`: its parameters, the memory
//! objects it touches ([`Array`]s: slices passed in, shared tiles), its variables ([`Local`]s),
//! and a tree of [`Block`]s of [`Stmt`]s whose operands are [`Expr`]s.
//!
//! Expressions are pure except for faults: evaluating one reads variables and memory and may
//! fault (an out-of-bounds index, a division by zero) but never writes. Every write is a
//! statement ([`Stmt::Let`], [`Stmt::Assign`]), and so is every change of control flow and every
//! barrier. Rust's expression-valued `if` and block expressions are lowered to a temporary
//! [`Local`] that the arms assign, unless both arms are bare expressions ([`Expr::Select`]).
//! Evaluation order is Rust's: operands left to right, statements in order.
//!
//! The module takes nothing from the rest of the compiler: every stage imports it, it imports
//! no stage. [`types`] holds the side tables the front end hands down ([`Types`], [`Checked`]);
//! [`visit`] is the one walker of the statement tree.
//!
//! Nodes live in [`Arena`]s and refer to each other by [`Handle`]; each arena keeps the source
//! [`Span`] of every node beside it. Analyses never change the IR: they return side tables
//! indexed by handle ([`types::Types`], the front end's type table, is one).
//!
//! Invariants every pass may rely on:
//! - every handle in a kernel points into that kernel's arenas;
//! - a `Local` is declared by exactly one `Stmt::Let` (or a `for` loop) before any use, and
//!   temporaries made by lowering are declared without initialiser and assigned on every path
//!   that reads them;
//! - `Stmt::Break`/`Continue` name a loop that encloses them;
//! - after the front end, every statement has a [`StmtId`] unique in its kernel, kept through
//!   clones and transforms: side tables about statements are keyed by it, never by address.

mod arena;
mod method;
mod param;
mod print;
mod record;
mod scalar;
mod shared;
pub mod types;
pub mod visit;

pub use arena::{Arena, Handle, Span, Src};
pub use cuphase_contract::{Distribution, MatrixLoad, MmaShape, WarpOp, WgmmaInput, WgmmaShape};
pub use method::{CheckedOp, Method};
pub use param::{Param, ParamKind, ParamSource};
pub use print::{split_format, FormatPart, FormatSpec, Placeholder, PrintPiece};
pub use record::{
    field_leaves, leaf_count, leaves, FieldOf, FieldType, Leaf, Record, RecordField, Step,
};
pub use scalar::Scalar;
pub use shared::{SharedLayout, CARVED_ALIGN, SHARED_LIMIT, SWIZZLE_ALIGN};
pub use types::{Checked, Types};

/// One `#[kernel]` function.
#[derive(Clone)]
pub struct Kernel {
    /// The Rust name of the function; also the CUDA name of the `__global__` function.
    pub name: String,
    /// Span of the function's name.
    pub name_span: Span,
    /// The parameters, in order.
    pub params: Vec<Param>,
    /// Slices and shared arrays the kernel indexes.
    pub arrays: Arena<Array>,
    /// Variables: scalar parameters, `let` bindings, loop variables and lowering temporaries.
    pub locals: Arena<Local>,
    /// Every expression of the body.
    pub exprs: Arena<Expr>,
    /// Loop labels (`'outer:`) and the loops they name.
    pub labels: Arena<Label>,
    /// The function body.
    pub body: Block,
    /// Options from the attribute.
    pub options: KernelOptions,
    /// Every barrier, by [`Stmt::Barrier`] index.
    pub barriers: Vec<Barrier>,
    /// The id the next numbered statement gets.
    pub next_stmt_id: u32,
    /// Module constants whose values the kernel was compiled with (read from its file).
    pub assumed_consts: Vec<AssumedConst>,
    /// The user structs the kernel uses (read from its file), each after those its fields
    /// name.
    pub records: Vec<Record>,
}

/// A module constant the compiler read the value of, which the glue asserts (so rustc checks
/// that the constant the kernel's module sees has it).
#[derive(Clone, Debug)]
pub struct AssumedConst {
    /// The name.
    pub name: String,
    /// The value.
    pub value: i128,
    /// The use.
    pub span: Span,
    /// The literal that stands for it in an expression (its type is the one the glue checks
    /// the constant against); `None` in an array length.
    pub expr: Option<Handle<Expr>>,
}

/// Options written in `#[kernel(...)]`.
#[derive(Clone, Debug, Default)]
pub struct KernelOptions {
    /// `launch_bounds = N`: the most threads per block the kernel will be launched with.
    pub launch_bounds: Option<u32>,
    /// `min_blocks_per_sm = M`: CUDA's second `__launch_bounds__` argument, the blocks each
    /// multiprocessor should hold at once (NVCC limits the registers to fit them); with the
    /// span of the number.
    pub min_blocks_per_sm: Option<(u32, proc_macro2::Span)>,
    /// `block = (x, y, z)`: the exact block shape every launch has (checked at launch on both
    /// back ends); the analyses use it.
    pub block: Option<[u32; 3]>,
    /// `fast_math`: NVRTC's `--use_fast_math` (approximate division, `sqrt`, transcendentals).
    pub fast_math: bool,
    /// `sync = "check"` (default) or `sync = "auto"`.
    pub sync: SyncMode,
    /// `bounds_checks = true | false`; by default on in debug builds of the defining crate.
    pub bounds_checks: Option<bool>,
    /// The kernel is a `kernel_closure!` closure: names it cannot resolve are captures.
    pub closure: bool,
}

/// How the compiler treats shared-memory hazards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SyncMode {
    /// A hazard is a compile error naming the fix.
    #[default]
    Check,
    /// The compiler inserts the barriers that remove every hazard and drops useless ones.
    Auto,
}

/// Why a barrier is in the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BarrierOrigin {
    /// `sync_block_threads()` written by the programmer.
    Written,
    /// The barrier that `uniform_load` starts with.
    UniformLoad,
    /// Inserted by `sync = "auto"`; the text says which hazard it removes.
    Inserted(String),
    /// The trailing barrier of a `#[device]` helper that writes shared memory (named here),
    /// placed after the inlined call.
    TrailingSync(String),
}

/// A barrier of the kernel.
#[derive(Clone, Debug)]
pub struct Barrier {
    /// Where it is (for an inserted barrier, the access it protects).
    pub span: Span,
    /// Why it is there.
    pub origin: BarrierOrigin,
    /// The helper calls it was inlined through, outermost first: each call's span and the
    /// helper's name. Empty for a barrier of the kernel's own body.
    pub calls: Vec<(Span, String)>,
}

/// A memory object that expressions index.
#[derive(Clone, Debug)]
pub struct Array {
    /// The Rust name.
    pub name: String,
    /// The element type.
    pub elem: Scalar,
    /// Where the array lives.
    pub kind: ArrayKind,
    /// For one scalar field of a `&[P]` parameter of structs: which (the array is `ps.x`).
    pub field: Option<FieldOf>,
}

/// Where an [`Array`] lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArrayKind {
    /// A `&[T]` (`mutable == false`) or `&mut [T]` parameter in global memory.
    Global { mutable: bool },
    /// `shared::<[T; N]>()` (one dimension) or `shared::<[[T; W]; H]>()` (`dims == [H, W]`):
    /// block-local memory. Dimensions are listed outermost first. `shared_slice::<T>()` is
    /// `dynamic`: one dimension whose length the launch sets (`dims == [0]`, unknown here).
    Shared {
        dims: Vec<u64>,
        dynamic: bool,
        /// `shared::<[T; N]>()` with `N` a const parameter of the kernel: a dynamic array whose
        /// byte size the host glue sets to `N * size_of::<T>()`.
        len_param: Option<String>,
    },
    /// `let mut a = [v; N]` (or `[[v; W]; H]`): an array private to each thread. Assignable
    /// when declared `mut`.
    Local { dims: Vec<u64>, mutable: bool },
}

/// The most elements a thread-local array may hold: it lives in registers (a thread has at
/// most 255), so a GEMM's 128 accumulators fit and a larger array is a mistake.
pub const LOCAL_ARRAY_LIMIT: u64 = 256;

impl Array {
    /// The bytes of a shared array of fixed size (saturating), `None` for other arrays.
    pub fn static_shared_bytes(&self) -> Option<u64> {
        match &self.kind {
            ArrayKind::Shared {
                dims,
                dynamic: false,
                ..
            } => Some(
                dims.iter()
                    .fold(self.elem.size_bytes(), |b, d| b.saturating_mul(*d)),
            ),
            _ => None,
        }
    }

    /// The name as the base of an identifier: `tile.pos[2].x` is `tile_pos_2_x`.
    pub fn ident(&self) -> String {
        self.name.replace(['.', '['], "_").replace(']', "")
    }

    /// The Rust text of one element, given the text of its indices (`[3]`): `tile[3]`, or
    /// `ps[3].pos.x` for a field of a slice or shared array of structs (whose name is the
    /// struct array's, a `.`, and the field's path: no other array's name has a `.`).
    pub fn element_text(&self, index: &str) -> String {
        match self.name.split_once('.') {
            // An element of a vector slice (`a.[1]`): `a[3][1]`.
            Some((base, path)) if path.starts_with('[') => format!("{base}{index}{path}"),
            Some((base, path)) => format!("{base}{index}.{path}"),
            None => format!("{}{index}", self.name),
        }
    }

    /// Number of index operands an access takes.
    pub fn rank(&self) -> usize {
        match &self.kind {
            ArrayKind::Global { .. } => 1,
            ArrayKind::Shared { dims, .. } | ArrayKind::Local { dims, .. } => dims.len(),
        }
    }
}

impl ArrayKind {
    /// Whether this is the dynamic shared array (`shared_slice`).
    pub fn is_dynamic(&self) -> bool {
        matches!(self, ArrayKind::Shared { dynamic: true, .. })
    }
}

/// A variable.
#[derive(Clone, Debug)]
pub struct Local {
    /// The Rust name (lowering temporaries get a descriptive one, e.g. `tmp`).
    pub name: String,
    /// Whether the variable may be assigned after its declaration.
    pub mutable: bool,
    /// The type written in the source, if any.
    pub annotated: Option<Scalar>,
    /// What made the variable.
    pub origin: LocalOrigin,
}

/// What made a [`Local`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalOrigin {
    /// A scalar kernel parameter.
    Param,
    /// A `let` binding.
    Let,
    /// The variable of a `for` loop.
    LoopVar,
    /// A temporary that holds the value of an `if` or block expression.
    Temp,
    /// A `const` item of the kernel's module, read by name ([`ParamSource::ModuleConst`]);
    /// its type must be fixed by how the body uses it.
    ModuleConst,
}

/// A loop label.
#[derive(Clone, Debug)]
pub struct Label {
    /// The label's name without the quote.
    pub name: String,
}

/// Literal values.
#[derive(Clone, Debug)]
pub enum Literal {
    /// `true` or `false`.
    Bool(bool),
    /// An integer literal (negation folded in), with its suffix type if it had one.
    Int { value: i128, suffix: Option<Scalar> },
    /// A float literal as written (decimal digits), with its suffix type if it had one.
    Float {
        digits: String,
        suffix: Option<Scalar>,
    },
    /// The zero of whatever type inference gives (`0`, `0.0`, `false`): the value an
    /// `Option`'s variable holds while it is `None`, and `unwrap_or_default`'s.
    Zero,
}

impl Literal {
    /// The literal of type `t` that [`Literal::Zero`] stands for.
    pub fn zero_of(t: Scalar) -> Literal {
        if t == Scalar::Bool {
            Literal::Bool(false)
        } else if t.is_float() {
            Literal::Float {
                digits: "0.0".into(),
                suffix: Some(t),
            }
        } else {
            Literal::Int {
                value: 0,
                suffix: Some(t),
            }
        }
    }
}

/// CUDA's limit on the threads of a block, and so on its x and y extents.
pub const MAX_BLOCK_THREADS: u32 = 1024;
/// CUDA's limits on a grid's extents along x, y and z.
pub const MAX_GRID_DIM: [u32; 3] = [i32::MAX as u32, 65535, 65535];

/// Index builtins: `thread_idx()`, `block_idx()`, `block_dim()`, `grid_dim()`, `global_idx()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    ThreadIdx,
    BlockIdx,
    BlockDim,
    GridDim,
    GlobalIdx,
    /// `lane_id()`: the thread's index in its warp (the axis is unused).
    LaneId,
    /// `warp_size()`: 32 (the axis is unused).
    WarpSize,
}

/// The component of a `Dim3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    /// `x`, `y` or `z`.
    pub fn name(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
        }
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `!x`: logical not on `bool`, bitwise not on integers.
    Not,
}

/// Binary operators (the short-circuit ones included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `&&`
    And,
    /// `||`
    Or,
}

impl BinaryOp {
    /// The operator as Rust (and C) spell it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }
    /// Whether the result is `bool` whatever the operand type.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }
    /// Whether the operator is a shift (its operands may have different types).
    pub fn is_shift(self) -> bool {
        matches!(self, BinaryOp::Shl | BinaryOp::Shr)
    }
}

/// An expression. See the module docs for evaluation rules.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A literal.
    Literal(Literal),
    /// The current value of a variable.
    Local(Handle<Local>),
    /// A component of an index builtin, always `u32`.
    Builtin { builtin: Builtin, axis: Axis },
    /// `slice.len()`, a `usize`.
    Len(Handle<Array>),
    /// `array[i]` or `tile[y][x]`: one index per dimension, outermost first.
    Load {
        array: Handle<Array>,
        index: Vec<Handle<Expr>>,
    },
    /// A unary operation.
    Unary { op: UnaryOp, expr: Handle<Expr> },
    /// A binary operation; `And` and `Or` evaluate `right` only when needed.
    Binary {
        op: BinaryOp,
        left: Handle<Expr>,
        right: Handle<Expr>,
    },
    /// `expr as T`, with Rust's meaning (float to int saturates, NaN becomes 0).
    Cast { expr: Handle<Expr>, to: Scalar },
    /// `if cond { accept } else { reject }` with bare-expression arms: only the chosen arm is
    /// evaluated.
    Select {
        cond: Handle<Expr>,
        accept: Handle<Expr>,
        reject: Handle<Expr>,
    },
    /// `assume_uniform(v)` inside `unsafe`: the programmer vouches that `v` is block-uniform.
    AssumeUniform(Handle<Expr>),
    /// The read of `uniform_load(&tile[i])`; lowering puts its barrier right before the
    /// statement that evaluates it. Uniform when the index is.
    UniformLoad {
        array: Handle<Array>,
        index: Vec<Handle<Expr>>,
    },
    /// `receiver.method(args)`: a scalar method with Rust's meaning (`x.sqrt()`, `a.min(b)`).
    Method {
        method: Method,
        receiver: Handle<Expr>,
        args: Vec<Handle<Expr>>,
    },
}

/// The scope of a memory fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenceScope {
    /// The block (`__threadfence_block`).
    Block,
    /// The device (`__threadfence`).
    Device,
    /// The system (`__threadfence_system`).
    System,
}

/// Read-modify-write operations of atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Sub,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exchange,
}

impl AtomicOp {
    /// The method name in Rust (`atomic_add`, ...).
    pub fn method(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomic_add",
            AtomicOp::Sub => "atomic_sub",
            AtomicOp::Min => "atomic_min",
            AtomicOp::Max => "atomic_max",
            AtomicOp::And => "atomic_and",
            AtomicOp::Or => "atomic_or",
            AtomicOp::Xor => "atomic_xor",
            AtomicOp::Exchange => "atomic_exchange",
        }
    }
    /// Parses a method name.
    pub fn from_method(name: &str) -> Option<AtomicOp> {
        Some(match name {
            "atomic_add" => AtomicOp::Add,
            "atomic_sub" => AtomicOp::Sub,
            "atomic_min" => AtomicOp::Min,
            "atomic_max" => AtomicOp::Max,
            "atomic_and" => AtomicOp::And,
            "atomic_or" => AtomicOp::Or,
            "atomic_xor" => AtomicOp::Xor,
            "atomic_exchange" => AtomicOp::Exchange,
            _ => return None,
        })
    }
}

/// A place that can be assigned.
#[derive(Clone, Debug)]
pub enum Place {
    /// A variable.
    Local(Handle<Local>),
    /// An element of an array; one index per dimension.
    Element {
        array: Handle<Array>,
        index: Vec<Handle<Expr>>,
    },
}

/// The identity of a statement, stable across clones of the kernel and across transforms
/// that insert or remove other statements: the key of every side table about statements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(u32);

impl StmtId {
    /// The id of a statement the front end has not numbered yet ([`Kernel::number_statements`]).
    pub const UNNUMBERED: StmtId = StmtId(u32::MAX);
}

/// A sequence of statements with the span and the id of each beside it.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// The statements in order.
    pub stmts: Vec<Stmt>,
    /// The span of each statement.
    pub spans: Vec<Span>,
    /// The id of each statement.
    pub ids: Vec<StmtId>,
    /// An `unsafe { }` block: its shared-memory accesses are left to the programmer (the
    /// simulator still checks them).
    pub is_unsafe: bool,
}

impl Block {
    /// Appends a statement; the front end numbers it when the kernel is complete.
    pub fn push(&mut self, stmt: Stmt, span: Span) {
        self.stmts.push(stmt);
        self.spans.push(span);
        self.ids.push(StmtId::UNNUMBERED);
    }
    /// Moves the statements of `other` to the end of this block.
    pub fn append(&mut self, other: Block) {
        self.stmts.extend(other.stmts);
        self.spans.extend(other.spans);
        self.ids.extend(other.ids);
    }
    /// Removes and returns the statement at `pos`.
    pub fn remove(&mut self, pos: usize) -> Stmt {
        self.spans.remove(pos);
        self.ids.remove(pos);
        self.stmts.remove(pos)
    }
    /// Statements with their spans.
    pub fn iter(&self) -> impl Iterator<Item = (&Stmt, Span)> {
        self.stmts.iter().zip(self.spans.iter().copied())
    }
    /// Statements with their spans and ids.
    pub fn iter_ids(&self) -> impl Iterator<Item = (&Stmt, Span, StmtId)> {
        self.iter()
            .zip(self.ids.iter().copied())
            .map(|((s, sp), id)| (s, sp, id))
    }
}

impl Kernel {
    /// Gives every statement that has none an id of its own. The front end calls it once the
    /// body is complete; afterwards every statement's id is unique in the kernel.
    pub fn number_statements(&mut self) {
        let mut next = self.next_stmt_id;
        visit::for_each_block_mut(&mut self.body, &mut |b| {
            for id in &mut b.ids {
                if *id == StmtId::UNNUMBERED {
                    *id = StmtId(next);
                    next += 1;
                }
            }
        });
        self.next_stmt_id = next;
    }

    /// Inserts `stmt` right before statement `before`, with a fresh id; returns that id, or
    /// `None` when no statement has id `before`.
    pub fn insert_before(&mut self, before: StmtId, stmt: Stmt, span: Span) -> Option<StmtId> {
        let id = StmtId(self.next_stmt_id);
        let (b, pos) = visit::find_stmt_mut(&mut self.body, before)?;
        b.stmts.insert(pos, stmt);
        b.spans.insert(pos, span);
        b.ids.insert(pos, id);
        self.next_stmt_id += 1;
        Some(id)
    }
}

/// The kinds of loops.
#[derive(Clone, Debug)]
pub enum LoopKind {
    /// `loop { .. }`
    Infinite,
    /// `while cond { .. }`; `cond` needs no statements to evaluate.
    While { cond: Handle<Expr> },
    /// `for var in start..end` or `(start..end).step_by(step)`, possibly distributed;
    /// `start..=end` when `inclusive`; counting down when `reverse` says how (sequential loops
    /// only). `start`, `end` and `step` are evaluated once, before the first iteration. The
    /// loop runs exactly the values Rust's iterator yields: it never overflows the type.
    For {
        var: Handle<Local>,
        start: Handle<Expr>,
        end: Handle<Expr>,
        step: Option<Handle<Expr>>,
        distribution: Distribution,
        inclusive: bool,
        reverse: Option<Reverse>,
    },
}

/// How a reversed `for` loop counts down (the two differ only with a step).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reverse {
    /// `(a..b).rev()` and `(a..b).rev().step_by(s)`: from the range's last value down by `s`.
    FromEnd,
    /// `(a..b).step_by(s).rev()`: the values of `(a..b).step_by(s)`, last first.
    Stepped,
}

/// One operand of a [`Stmt::Mma`]: a thread-local array, or row `row` of a two-dimensional one
/// (the front end checks the row against the array first).
#[derive(Clone, Copy, Debug)]
pub struct Fragment {
    pub array: Handle<Array>,
    pub row: Option<Handle<Expr>>,
}

/// The `A` operand of a [`Stmt::Wgmma`].
#[derive(Clone, Copy, Debug)]
pub enum WgmmaA {
    /// A tile in shared memory: 64 rows from chunk `row` of `array`, read asynchronously.
    Tile {
        array: Handle<Array>,
        row: Handle<Expr>,
    },
    /// The thread's fragment in registers (16-bit inputs; see
    /// [`cuphase_contract::WgmmaShape::a_frag_at`]), read until the multiply's wait.
    Registers(Fragment),
}

impl WgmmaA {
    /// The shared array of a tile operand.
    pub fn tile(&self) -> Option<Handle<Array>> {
        match self {
            WgmmaA::Tile { array, .. } => Some(*array),
            WgmmaA::Registers(_) => None,
        }
    }
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let x = init;` or `let x;`.
    Let {
        local: Handle<Local>,
        init: Option<Handle<Expr>>,
    },
    /// `place = value` or `place op= value`.
    Assign {
        place: Place,
        op: Option<BinaryOp>,
        value: Handle<Expr>,
    },
    /// `if cond { accept } else { reject }` as a statement.
    If {
        cond: Handle<Expr>,
        accept: Block,
        reject: Block,
    },
    /// A loop.
    Loop {
        label: Option<Handle<Label>>,
        kind: LoopKind,
        body: Block,
    },
    /// `break` out of the innermost loop or the labelled one.
    Break { label: Option<Handle<Label>> },
    /// `continue` the innermost loop or the labelled one.
    Continue { label: Option<Handle<Label>> },
    /// `return` from the kernel.
    Return,
    /// `sync_block_threads()`; the index is into [`Kernel::barriers`].
    Barrier { index: usize },
    /// `fence_block()`, `fence_device()`, `fence_system()`: memory ordering, no barrier.
    Fence(FenceScope),
    /// `array.atomic_op(i, v)`: atomically combines element `i` with `value`; the old value
    /// goes to `result` when it is used.
    Atomic {
        op: AtomicOp,
        array: Handle<Array>,
        index: Handle<Expr>,
        value: Handle<Expr>,
        result: Option<Handle<Local>>,
    },
    /// A warp operation; `value` is the shuffled value or the predicate, `lane` the lane,
    /// mask or distance of a shuffle; the result goes to `result`.
    Warp {
        op: WarpOp,
        value: Option<Handle<Expr>>,
        lane: Option<Handle<Expr>>,
        result: Option<Handle<Local>>,
    },
    /// `mma_m16n8k16(&mut acc, &a, &b)` (or another [`MmaShape`]): the warp's fragments of
    /// `a` and `b` multiplied, added to `acc`'s. Warp-collective, like [`Stmt::Warp`].
    Mma {
        shape: MmaShape,
        acc: Fragment,
        a: Fragment,
        b: Fragment,
    },
    /// `ldmatrix(&mut frag, &tile[row])` (`ldmatrix_trans` when `load.trans`): each lane gives
    /// row `row` of the two-dimensional shared array `tile` (16 bytes) and receives its
    /// elements of the warp's rows into `frag`, as [`MatrixLoad::source`] says.
    /// Warp-collective, like [`Stmt::Mma`]; for the analyses, each lane reads the row it gives.
    LoadMatrix {
        load: MatrixLoad,
        frag: Fragment,
        tile: Handle<Array>,
        row: Handle<Expr>,
    },
    /// `wgmma_m64n{N}k16(&mut acc, &a_tile[ra], &b_tile[rb])` (or `k8_tf32`): the warpgroup's
    /// `A` (a tile, or fragments in registers) times the transpose of its `B` tile (`N` rows
    /// from chunk `b_row` of `b`), added to `acc` (see [`cuphase_contract::wgmma`]).
    /// Warpgroup-collective and asynchronous: the operands are read and `acc` written until
    /// this thread's [`Stmt::WgmmaWait`] that covers its group; the analyses and the simulator
    /// treat the reads as in flight until then.
    Wgmma {
        shape: WgmmaShape,
        acc: Fragment,
        a: WgmmaA,
        b: Handle<Array>,
        b_row: Handle<Expr>,
    },
    /// `wgmma_commit()`: closes this thread's group of warpgroup multiplies issued since the
    /// last commit.
    WgmmaCommit,
    /// `wgmma_wait(n)`: waits until at most the `n` most recent committed groups of warpgroup
    /// multiplies are in flight.
    WgmmaWait { pending: u32 },
    /// `cp_async(&mut dst[i], &src[j])`: an asynchronous copy of one element of a global
    /// slice into shared memory (4, 8 or 16 bytes: CUDA's `cp.async`). `src` holds the element's
    /// loads, one per lane (one for a scalar, the lanes of a vector record in order); `dst` is
    /// written at `dst_index` (a scalar element), or, when `row`, at `[dst_index[0], lane]`, the
    /// lanes of a row of a two-dimensional array. The write is in flight until this thread's
    /// [`Stmt::AsyncWait`] that covers its group: the analyses and the simulator treat it so.
    AsyncCopy {
        dst: Handle<Array>,
        dst_index: Vec<Handle<Expr>>,
        row: bool,
        src: Vec<Handle<Expr>>,
    },
    /// `cp_async_commit()`: closes this thread's group of asynchronous copies issued since the
    /// last commit.
    AsyncCommit,
    /// `cp_async_wait(n)`: waits until at most the `n` most recent committed groups of this
    /// thread are in flight (every earlier group's copies have landed).
    AsyncWait { pending: u32 },
    /// A nested scope `{ .. }`.
    Block(Block),
    /// An expression evaluated for its faults only (`a[i];`).
    Eval(Handle<Expr>),
    /// `index < len`, checked as an index into an array is: past it the launch fails with an
    /// out-of-bounds fault on `array` (`bs[..].pos`). Lowering puts it before a computed
    /// index into an array field of a struct chooses among the elements. Like the bounds
    /// checks of loads and stores it is a fault, not control flow, for the analyses. A check
    /// the front end `proved` (the index is a `for` variable whose range lies in `0..len`) only
    /// types the index; the writers emit nothing for it.
    Check {
        index: Handle<Expr>,
        len: u64,
        array: String,
        proved: bool,
    },
    /// `panic!`, a failed `assert!` (or `debug_assert!` in debug builds): the thread stops and
    /// the launch fails with this message.
    Panic { message: String, debug_only: bool },
    /// `print!`/`println!`: the pieces in order, then a line end for `println!`.
    Print {
        pieces: Vec<PrintPiece>,
        newline: bool,
    },
}
