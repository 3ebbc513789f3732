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
//! Nodes live in [`Arena`]s and refer to each other by [`Handle`]; each arena keeps the source
//! [`Span`] of every node beside it. Analyses never change the IR: they return side tables
//! indexed by handle (the types from [`crate::front::infer`] are one).
//!
//! Invariants every pass may rely on:
//! - every handle in a kernel points into that kernel's arenas;
//! - a `Local` is declared by exactly one `Stmt::Let` (or a `for` loop) before any use, and
//!   temporaries made by lowering are declared without initialiser and assigned on every path
//!   that reads them;
//! - `Stmt::Break`/`Continue` name a loop that encloses them.

use std::fmt;
use std::marker::PhantomData;

/// Where a node stands in the Rust source: the spans of its first and last tokens.
///
/// Stable proc macros cannot join two spans into one, but a diagnostic given both ends is
/// underlined over the whole node (`t < 16`, not just `t`).
#[derive(Clone, Copy, Debug)]
pub struct Span {
    /// The first token's span.
    pub lo: proc_macro2::Span,
    /// The last token's span.
    pub hi: proc_macro2::Span,
}

impl Span {
    /// The range of a syntax node.
    pub fn of(node: &impl quote::ToTokens) -> Span {
        let mut tokens = node.to_token_stream().into_iter();
        let first = tokens.next().map(|t| t.span());
        let last = tokens.last().map(|t| t.span());
        match (first, last) {
            (Some(lo), Some(hi)) => Span { lo, hi },
            (Some(lo), None) => Span { lo, hi: lo },
            _ => Span::from(proc_macro2::Span::call_site()),
        }
    }
    /// Line and column of the start.
    pub fn start(&self) -> proc_macro2::LineColumn {
        self.lo.start()
    }
    /// The Rust file the node is in, or `default` when the span knows no real file (source
    /// parsed from a string). Helpers inlined into a kernel may come from another file.
    pub fn file_or(&self, default: &str) -> String {
        let f = self.lo.file();
        if f.is_empty() || f.starts_with('<') {
            default.to_string()
        } else {
            f
        }
    }
    /// The range from the start of `self` to the end of `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            lo: self.lo,
            hi: other.hi,
        }
    }
}

impl From<proc_macro2::Span> for Span {
    fn from(s: proc_macro2::Span) -> Self {
        Span { lo: s, hi: s }
    }
}

/// Source ranges of syntax nodes: `node.src()`.
pub trait Src {
    /// The node's range.
    fn src(&self) -> Span;
}

impl<T: quote::ToTokens> Src for T {
    fn src(&self) -> Span {
        Span::of(self)
    }
}

/// A typed index into an [`Arena`].
pub struct Handle<T> {
    index: u32,
    marker: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    /// The position of the node in its arena.
    pub fn index(self) -> usize {
        self.index as usize
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<T> Eq for Handle<T> {}
impl<T> std::hash::Hash for Handle<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state)
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.index)
    }
}

/// A `Vec` of nodes with the source span of each beside it.
pub struct Arena<T> {
    items: Vec<T>,
    spans: Vec<Span>,
}

impl<T: Clone> Clone for Arena<T> {
    fn clone(&self) -> Self {
        Arena {
            items: self.items.clone(),
            spans: self.spans.clone(),
        }
    }
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            items: Vec::new(),
            spans: Vec::new(),
        }
    }
}

impl<T> Arena<T> {
    /// Adds a node and returns its handle.
    pub fn append(&mut self, item: T, span: Span) -> Handle<T> {
        let index = u32::try_from(self.items.len()).unwrap_or(u32::MAX);
        self.items.push(item);
        self.spans.push(span);
        Handle {
            index,
            marker: PhantomData,
        }
    }
    /// The node behind `h`.
    pub fn get(&self, h: Handle<T>) -> &T {
        &self.items[h.index()]
    }
    /// The node behind `h`, mutably.
    pub fn get_mut(&mut self, h: Handle<T>) -> &mut T {
        &mut self.items[h.index()]
    }
    /// The source span of the node behind `h`.
    pub fn span(&self, h: Handle<T>) -> Span {
        self.spans[h.index()]
    }
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// Whether the arena has no nodes.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// All handles with their nodes, in order of creation.
    pub fn iter(&self) -> impl Iterator<Item = (Handle<T>, &T)> {
        self.items.iter().enumerate().map(|(i, t)| {
            (
                Handle {
                    index: i as u32,
                    marker: PhantomData,
                },
                t,
            )
        })
    }
}

/// The scalar types a kernel computes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    /// Rust's `usize`: 64 bits on every target cuphase supports.
    Usize,
    F32,
    F64,
    /// `half::f16`: IEEE binary16. Arithmetic rounds the `f32` result, as the `half` crate does.
    F16,
    /// `half::bf16`: bfloat16, likewise computed through `f32`.
    Bf16,
}

impl Scalar {
    /// Parses a Rust primitive type name.
    pub fn from_rust_name(name: &str) -> Option<Scalar> {
        Some(match name {
            "bool" => Scalar::Bool,
            "i8" => Scalar::I8,
            "i16" => Scalar::I16,
            "i32" => Scalar::I32,
            "i64" => Scalar::I64,
            "u8" => Scalar::U8,
            "u16" => Scalar::U16,
            "u32" => Scalar::U32,
            "u64" => Scalar::U64,
            "usize" => Scalar::Usize,
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            "f16" => Scalar::F16,
            "bf16" => Scalar::Bf16,
            _ => return None,
        })
    }
    /// The Rust name of the type.
    pub fn rust_name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
            Scalar::Usize => "usize",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::F16 => "f16",
            Scalar::Bf16 => "bf16",
        }
    }
    /// Whether the type is an integer type.
    pub fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }
    /// Whether the type is a signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
    }
    /// Whether the type is an unsigned integer type.
    pub fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64 | Scalar::Usize
        )
    }
    /// Whether the type is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64 | Scalar::F16 | Scalar::Bf16)
    }
    /// Whether the type is `half::f16` or `half::bf16` (computed through `f32`).
    pub fn is_half(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::Bf16)
    }
    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::I8 | Scalar::U8 => 8,
            Scalar::I16 | Scalar::U16 | Scalar::F16 | Scalar::Bf16 => 16,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 32,
            Scalar::I64 | Scalar::U64 | Scalar::Usize | Scalar::F64 => 64,
        }
    }
    /// Size in bytes.
    pub fn size_bytes(self) -> u64 {
        u64::from(self.bits() / 8)
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rust_name())
    }
}

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
}

/// Options written in `#[kernel(...)]`.
#[derive(Clone, Debug, Default)]
pub struct KernelOptions {
    /// `launch_bounds = N`: the most threads per block the kernel will be launched with.
    pub launch_bounds: Option<u32>,
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

/// A kernel parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// The Rust name.
    pub name: String,
    /// What the parameter is.
    pub kind: ParamKind,
    /// Span of the whole `name: Type` pair.
    pub span: Span,
    /// A const generic parameter (`const N: u32`): a scalar the host glue takes from the
    /// kernel value's type (`k::<256>`) and passes at launch.
    pub generic: bool,
}

/// What a kernel parameter is.
#[derive(Clone, Copy, Debug)]
pub enum ParamKind {
    /// A scalar passed by value; read through its [`Local`].
    Scalar { local: Handle<Local>, ty: Scalar },
    /// `&[T]` or `&mut [T]`: a pointer and a length.
    Slice { array: Handle<Array> },
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

impl Array {
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
}

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

/// The scalar methods kernels support, with Rust's meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Sqrt,
    Exp,
    Exp2,
    Ln,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Tanh,
    Powf,
    Powi,
    Floor,
    Ceil,
    Round,
    Trunc,
    MulAdd,
    Recip,
    Abs,
    Min,
    Max,
    Clamp,
    Pow,
    CountOnes,
    LeadingZeros,
    TrailingZeros,
    WrappingAdd,
    WrappingSub,
    WrappingMul,
    RotateLeft,
    RotateRight,
}

impl Method {
    /// Every method with its Rust name.
    pub const ALL: &'static [(&'static str, Method)] = &[
        ("sqrt", Method::Sqrt),
        ("exp", Method::Exp),
        ("exp2", Method::Exp2),
        ("ln", Method::Ln),
        ("log2", Method::Log2),
        ("log10", Method::Log10),
        ("sin", Method::Sin),
        ("cos", Method::Cos),
        ("tan", Method::Tan),
        ("tanh", Method::Tanh),
        ("powf", Method::Powf),
        ("powi", Method::Powi),
        ("floor", Method::Floor),
        ("ceil", Method::Ceil),
        ("round", Method::Round),
        ("trunc", Method::Trunc),
        ("mul_add", Method::MulAdd),
        ("recip", Method::Recip),
        ("abs", Method::Abs),
        ("min", Method::Min),
        ("max", Method::Max),
        ("clamp", Method::Clamp),
        ("pow", Method::Pow),
        ("count_ones", Method::CountOnes),
        ("leading_zeros", Method::LeadingZeros),
        ("trailing_zeros", Method::TrailingZeros),
        ("wrapping_add", Method::WrappingAdd),
        ("wrapping_sub", Method::WrappingSub),
        ("wrapping_mul", Method::WrappingMul),
        ("rotate_left", Method::RotateLeft),
        ("rotate_right", Method::RotateRight),
    ];
    /// The method named `name`.
    pub fn from_name(name: &str) -> Option<Method> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
    }
    /// The Rust name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("?", |(n, _)| n)
    }
    /// Number of arguments besides the receiver.
    pub fn arity(self) -> usize {
        match self {
            Method::Powf | Method::Powi | Method::Min | Method::Max | Method::Pow => 1,
            Method::WrappingAdd | Method::WrappingSub | Method::WrappingMul => 1,
            Method::RotateLeft | Method::RotateRight => 1,
            Method::MulAdd | Method::Clamp => 2,
            _ => 0,
        }
    }
    /// Only on floats.
    pub fn float_only(self) -> bool {
        matches!(
            self,
            Method::Sqrt
                | Method::Exp
                | Method::Exp2
                | Method::Ln
                | Method::Log2
                | Method::Log10
                | Method::Sin
                | Method::Cos
                | Method::Tan
                | Method::Tanh
                | Method::Powf
                | Method::Powi
                | Method::Floor
                | Method::Ceil
                | Method::Round
                | Method::Trunc
                | Method::MulAdd
                | Method::Recip
        )
    }
    /// Only on integers.
    pub fn int_only(self) -> bool {
        matches!(
            self,
            Method::Pow
                | Method::CountOnes
                | Method::LeadingZeros
                | Method::TrailingZeros
                | Method::WrappingAdd
                | Method::WrappingSub
                | Method::WrappingMul
                | Method::RotateLeft
                | Method::RotateRight
        )
    }
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

/// Warp-level collective operations. Each is reached by every thread of the block (the
/// barrier analysis treats it like a barrier for divergence) and works over the threads of the
/// thread's warp (32 consecutive linear thread ids; the last warp of a block may be partial).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpOp {
    /// `sync_warp()`.
    Sync,
    /// `warp_shuffle(v, lane)`: `v` of lane `lane % 32` (own `v` if that lane does not exist).
    Shuffle,
    /// `warp_shuffle_xor(v, m)`: `v` of lane `lane ^ (m % 32)`.
    ShuffleXor,
    /// `warp_shuffle_up(v, d)`: `v` of lane `lane - d` (own `v` below `d`).
    ShuffleUp,
    /// `warp_shuffle_down(v, d)`: `v` of lane `lane + d` (own `v` past the last lane).
    ShuffleDown,
    /// `warp_ballot(p)`: bit `i` set when lane `i`'s `p` holds.
    Ballot,
    /// `warp_all(p)`.
    All,
    /// `warp_any(p)`.
    Any,
}

impl WarpOp {
    /// Every operation with its Rust name.
    pub const ALL: &'static [(&'static str, WarpOp)] = &[
        ("sync_warp", WarpOp::Sync),
        ("warp_shuffle", WarpOp::Shuffle),
        ("warp_shuffle_xor", WarpOp::ShuffleXor),
        ("warp_shuffle_up", WarpOp::ShuffleUp),
        ("warp_shuffle_down", WarpOp::ShuffleDown),
        ("warp_ballot", WarpOp::Ballot),
        ("warp_all", WarpOp::All),
        ("warp_any", WarpOp::Any),
    ];
    /// The operation named `name`.
    pub fn from_name(name: &str) -> Option<WarpOp> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, o)| *o)
    }
    /// The Rust name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, o)| *o == self)
            .map_or("?", |(n, _)| n)
    }
    /// Number of arguments.
    pub fn arity(self) -> usize {
        match self {
            WarpOp::Sync => 0,
            WarpOp::Ballot | WarpOp::All | WarpOp::Any => 1,
            _ => 2,
        }
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

/// A sequence of statements with the span of each beside it.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// The statements in order.
    pub stmts: Vec<Stmt>,
    /// The span of each statement.
    pub spans: Vec<Span>,
    /// An `unsafe { }` block: its shared-memory accesses are left to the programmer (the
    /// simulator still checks them).
    pub is_unsafe: bool,
}

impl Block {
    /// Appends a statement.
    pub fn push(&mut self, stmt: Stmt, span: Span) {
        self.stmts.push(stmt);
        self.spans.push(span);
    }
    /// Statements with their spans.
    pub fn iter(&self) -> impl Iterator<Item = (&Stmt, Span)> {
        self.stmts.iter().zip(self.spans.iter().copied())
    }
}

/// How a `for` loop distributes its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distribution {
    /// `for i in a..b` or `(a..b).step_by(s)`: every thread runs every iteration.
    Sequential,
    /// `threads_in_block(r)`: thread `t` takes `r[t], r[t + block_dim.x], ...`.
    ThreadsInBlock,
    /// `blocks_in_grid(r)`: block `b` takes `r[b], r[b + grid_dim.x], ...` (block-uniform).
    BlocksInGrid,
    /// `threads_in_grid(r)`: the global thread index `g` takes `r[g], r[g + total], ...`.
    ThreadsInGrid,
}

/// The kinds of loops.
#[derive(Clone, Debug)]
pub enum LoopKind {
    /// `loop { .. }`
    Infinite,
    /// `while cond { .. }`; `cond` needs no statements to evaluate.
    While { cond: Handle<Expr> },
    /// `for var in start..end` or `(start..end).step_by(step)`, possibly distributed.
    /// `start`, `end` and `step` are evaluated once, before the first iteration.
    For {
        var: Handle<Local>,
        start: Handle<Expr>,
        end: Handle<Expr>,
        step: Option<Handle<Expr>>,
        distribution: Distribution,
    },
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
    /// A nested scope `{ .. }`.
    Block(Block),
    /// An expression evaluated for its faults only (`a[i];`).
    Eval(Handle<Expr>),
    /// `panic!`, a failed `assert!` (or `debug_assert!` in debug builds): the thread stops and
    /// the launch fails with this message.
    Panic { message: String, debug_only: bool },
}
