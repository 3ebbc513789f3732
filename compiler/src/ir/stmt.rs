//! Statements: [`Stmt`] and what it is made of (places, loops, fences, atomics, matrix
//! operands), the [`Block`]s that hold them with their spans and [`StmtId`]s, and the
//! numbering and insertion of statements in a [`Kernel`].

use super::*;

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
