//! Expressions: literals, the index builtins, the operators and [`Expr`] itself (pure but for
//! faults; see the module above).

use super::*;

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
