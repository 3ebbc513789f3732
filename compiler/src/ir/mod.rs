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
mod expr;
mod method;
mod param;
mod print;
mod record;
mod scalar;
mod shared;
mod stmt;
pub mod types;
pub mod visit;

pub use arena::{Arena, Handle, Span, Src};
pub use cuphase_contract::{Distribution, MatrixLoad, MmaShape, WarpOp, WgmmaInput, WgmmaShape};
pub use expr::*;
pub use method::{CheckedOp, Method};
pub use param::{Param, ParamKind, ParamSource};
pub use print::{split_format, FormatPart, FormatSpec, Placeholder, PrintPiece};
pub use record::{
    field_leaves, leaf_count, leaves, FieldOf, FieldType, Leaf, Record, RecordField, Step,
};
pub use scalar::Scalar;
pub use shared::{SharedLayout, CARVED_ALIGN, SHARED_LIMIT, SWIZZLE_ALIGN};
pub use stmt::*;
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

/// CUDA's limit on the threads of a block, and so on its x and y extents.
pub const MAX_BLOCK_THREADS: u32 = 1024;
/// CUDA's limits on a grid's extents along x, y and z.
pub const MAX_GRID_DIM: [u32; 3] = [i32::MAX as u32, 65535, 65535];
