//! Kernel parameters: what the launch passes, and where each value comes from (an argument,
//! a const generic, a module constant, a length computed from constants).

use super::{Array, Handle, Kernel, Local, Scalar, Span};

/// A kernel parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// The Rust name.
    pub name: String,
    /// What the parameter is.
    pub kind: ParamKind,
    /// Span of the whole `name: Type` pair (for a module constant, of its first use).
    pub span: Span,
    /// Where the launch takes the value from.
    pub source: ParamSource,
}

/// Where a kernel parameter's value comes from at launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamSource {
    /// An argument of `launch`.
    Argument,
    /// A const generic parameter (`const N: u32`): the host glue takes it from the kernel
    /// value's type (`k::<256>`) and passes it at launch.
    ConstGeneric,
    /// A `const` item of the kernel's module (`const R: u32 = 4;`), used by name in the body:
    /// the host glue reads it where the kernel is defined (rustc checks that its type is the
    /// one the body uses) and passes it at launch, as a block-uniform scalar.
    ModuleConst,
    /// `NAME as T` of a module constant: the host glue computes the cast (with rustc's types
    /// and Rust's meaning) and passes the result, of type `T`.
    ModuleConstAs(Scalar),
    /// The length of a shared array written as an expression of constants
    /// (`[f32; BLOCK + 2 * R]`): the parameter's name is the expression's Rust text, which
    /// the host glue evaluates (a `usize`) and passes; it also sizes the launch's dynamic
    /// shared memory.
    ArrayLength,
    /// A variable a `kernel_closure!` closure captures (by value): the kernel value holds it
    /// (rustc checks its type against the one the body uses) and passes it at launch, as a
    /// block-uniform scalar.
    Capture,
    /// `name as T` of a variable a closure captures: the kernel value holds the cast, which
    /// rustc computes at the capture (with the variable's own type), of type `T`.
    CaptureAs(Scalar),
}

impl Kernel {
    /// The parameter that holds the value named `name` (a const generic, a module constant,
    /// or the text of a length computed from them, as a shared array's length names it).
    pub fn param_named(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| {
            p.name == name
                && !matches!(
                    p.source,
                    ParamSource::ModuleConstAs(_) | ParamSource::CaptureAs(_)
                )
        })
    }
}

impl Param {
    /// Whether the value comes from the kernel's definition (a const generic, a module
    /// constant or a closure's capture), not from an argument of `launch`.
    pub fn is_implicit(&self) -> bool {
        self.source != ParamSource::Argument
    }
}

/// What a kernel parameter is.
#[derive(Clone, Copy, Debug)]
pub enum ParamKind {
    /// A scalar passed by value; read through its [`Local`].
    Scalar { local: Handle<Local>, ty: Scalar },
    /// `&[T]` or `&mut [T]`: a pointer and a length.
    Slice { array: Handle<Array> },
}
