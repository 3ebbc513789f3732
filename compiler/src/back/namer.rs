//! One place that decides every name a back end emits.
//!
//! Takes the Rust names of a kernel's parameters, arrays, locals and temporaries, in the
//! order a writer declares them; gives each a unique identifier. Guarantees: a namer hands a
//! name out once, and the same names asked in the same order give the same identifiers (the
//! output is deterministic). [`Namer::new`] also keeps out C, C++ and CUDA words and the names
//! generated C uses itself (`cuphase`, `threadIdx`, ...), for the CUDA writer;
//! `Namer::default()` only makes names unique, for the simulator's Rust.

use std::collections::HashSet;

/// The C name of a struct or field name that the CUDA C spells as Rust does where it can: a
/// C, C++ or CUDA word (or a name ending in `_`, so that no two names meet) gets a `_`
/// appended. Struct fields keep their layout whatever their names, so no namer is needed.
pub fn c_member_name(name: &str) -> String {
    if RESERVED.contains(&name) || name.ends_with('_') {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// C, C++ and CUDA words a kernel's names must not collide with.
const RESERVED: &[&str] = &[
    // C and C++ keywords
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    "main",
    "NULL",
    // CUDA builtins and the names cuphase's generated code uses
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "cuphase",
    "min",
    "max",
    "fmodf",
    "fmod",
    "__syncthreads",
    "size_t",
];

/// Hands out unique, valid C identifiers derived from Rust names.
#[derive(Default)]
pub struct Namer {
    used: HashSet<String>,
}

impl Namer {
    /// A namer that knows the reserved words.
    pub fn new() -> Self {
        Namer {
            used: RESERVED.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// A unique name based on `base`: `base` itself if free, else `base_1`, `base_2`, ...
    /// Rust raw identifiers lose their `r#`; names that start with `__` (reserved in C++) get
    /// a prefix.
    pub fn call(&mut self, base: &str) -> String {
        let mut base = base.trim_start_matches("r#").to_string();
        if base.starts_with("__") || base.is_empty() {
            base = format!("v{base}");
        }
        if self.used.insert(base.clone()) {
            return base;
        }
        for i in 1.. {
            let candidate = format!("{base}_{i}");
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
        }
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_and_repeated_names_are_renamed() {
        let mut n = Namer::new();
        assert_eq!(n.call("x"), "x");
        assert_eq!(n.call("x"), "x_1");
        assert_eq!(n.call("int"), "int_1");
        assert_eq!(n.call("__tmp"), "v__tmp");
        assert_eq!(n.call("r#float"), "float_1");
    }
}
