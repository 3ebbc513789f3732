//! The translation of [`super::libm`]'s Rust to CUDA C.
//!
//! Takes the parsed library and the functions a kernel calls; gives their C definitions (and
//! those of everything they reach) in `namespace cuphase::math`. The subset it accepts is the
//! one the library is written in: typed `let`s, `if`/`else` (as statements, or as values whose
//! branches are single expressions), `while`, `return`, tuples as return values, fixed-size
//! arrays, the scalar types, and the methods listed in [`Translator::method`]. Anything else is
//! an `Err` naming it, which the unit tests turn into a failure, so the library cannot grow a
//! construct that would mean something else in C.
//!
//! Guarantees: every operation keeps its Rust meaning in C given the library's rules (see
//! [`super::libm`]): operands have one type, literals carry their type, `as` is a C cast, and
//! the float methods are the correctly rounded C functions of the same name.

use std::collections::HashMap;
use std::fmt::Write as _;
use syn::{BinOp, Expr, Item, Lit, Pat, Stmt, Type, UnOp};

/// A scalar, array or tuple type of the subset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    Scalar(&'static str),
    Array(Box<Ty>, usize),
    Tuple(Vec<Ty>),
}

impl Ty {
    /// The C spelling of a scalar or tuple type.
    fn c(&self) -> String {
        match self {
            Ty::Scalar(s) => c_scalar(s).to_string(),
            Ty::Tuple(_) => self.tuple_name(),
            Ty::Array(e, _) => e.c(),
        }
    }

    /// `tuple_f64_f64`: the C struct standing for a tuple type.
    fn tuple_name(&self) -> String {
        match self {
            Ty::Tuple(ts) => {
                let mut s = String::from("tuple");
                for t in ts {
                    s.push('_');
                    s.push_str(&t.rust());
                }
                s
            }
            _ => String::new(),
        }
    }

    fn rust(&self) -> String {
        match self {
            Ty::Scalar(s) => (*s).to_string(),
            Ty::Array(e, n) => format!("{}x{n}", e.rust()),
            Ty::Tuple(_) => self.tuple_name(),
        }
    }

    fn scalar(&self) -> &'static str {
        match self {
            Ty::Scalar(s) => s,
            _ => "",
        }
    }
}

fn c_scalar(s: &str) -> &'static str {
    match s {
        "f64" => "double",
        "f32" => "float",
        "u64" | "usize" => "unsigned long long",
        "i64" => "long long",
        "u32" => "unsigned int",
        "i32" => "int",
        "bool" => "bool",
        _ => "void",
    }
}

/// The subset's type of a syn type.
pub(super) fn ty_of(t: &Type) -> Result<Ty, String> {
    match t {
        Type::Path(p) => {
            let id = p
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            for s in ["f64", "f32", "u64", "usize", "i64", "u32", "i32", "bool"] {
                if id == s {
                    return Ok(Ty::Scalar(s));
                }
            }
            Err(format!("type `{id}` is not in the math subset"))
        }
        Type::Array(a) => {
            let n = match &a.len {
                Expr::Lit(l) => match &l.lit {
                    Lit::Int(i) => i.base10_parse::<usize>().map_err(|e| e.to_string())?,
                    _ => return Err("array length is not an integer".into()),
                },
                _ => return Err("array length is not a literal".into()),
            };
            Ok(Ty::Array(Box::new(ty_of(&a.elem)?), n))
        }
        Type::Reference(r) => ty_of(&r.elem),
        Type::Tuple(t) => Ok(Ty::Tuple(
            t.elems.iter().map(ty_of).collect::<Result<_, _>>()?,
        )),
        Type::Paren(p) => ty_of(&p.elem),
        _ => Err("a type outside the math subset".into()),
    }
}

/// The library's top-level items by name, with the signatures and constant types the
/// translation looks up.
pub(super) struct Library<'a> {
    /// Items in file order.
    pub items: Vec<(String, &'a Item)>,
    fns: HashMap<String, (Vec<Ty>, Ty)>,
    consts: HashMap<String, Ty>,
}

impl<'a> Library<'a> {
    /// The library of `files`, whose items form one namespace (their `use`s are Rust's
    /// way of saying so, and are skipped).
    pub(super) fn new(files: &'a [syn::File]) -> Result<Self, String> {
        let mut lib = Library {
            items: Vec::new(),
            fns: HashMap::new(),
            consts: HashMap::new(),
        };
        for item in files.iter().flat_map(|f| &f.items) {
            match item {
                Item::Use(_) => {}
                Item::Const(c) => {
                    let name = c.ident.to_string();
                    lib.consts.insert(name.clone(), ty_of(&c.ty)?);
                    lib.items.push((name, item));
                }
                Item::Fn(f) => {
                    let name = f.sig.ident.to_string();
                    let mut params = Vec::new();
                    for p in &f.sig.inputs {
                        match p {
                            syn::FnArg::Typed(t) => params.push(ty_of(&t.ty)?),
                            syn::FnArg::Receiver(_) => return Err(format!("`{name}` has self")),
                        }
                    }
                    let ret = match &f.sig.output {
                        syn::ReturnType::Type(_, t) => ty_of(t)?,
                        syn::ReturnType::Default => return Err(format!("`{name}` returns ()")),
                    };
                    lib.fns.insert(name.clone(), (params, ret));
                    lib.items.push((name, item));
                }
                _ => return Err("an item other than `const` or `fn` in the math library".into()),
            }
        }
        Ok(lib)
    }

    /// The C text of `items` (names of the library's items, in file order): tuple structs,
    /// constants, prototypes, then the functions.
    pub(super) fn to_c(&self, items: &[&str]) -> Result<String, String> {
        let mut tuples: Vec<Ty> = Vec::new();
        let mut consts = String::new();
        let mut protos = String::new();
        let mut bodies = String::new();
        for (name, item) in &self.items {
            if !items.contains(&name.as_str()) {
                continue;
            }
            match item {
                Item::Const(c) => {
                    let ty = ty_of(&c.ty)?;
                    let mut t = Translator::new(self, HashMap::new());
                    match &ty {
                        Ty::Array(elem, n) => {
                            let Expr::Array(a) = &*c.expr else {
                                return Err(format!("`{name}` is not an array literal"));
                            };
                            let elems: Vec<String> = a
                                .elems
                                .iter()
                                .map(|e| t.expr(e, Some(elem)).map(|(s, _)| s))
                                .collect::<Result<_, _>>()?;
                            let _ = writeln!(
                                consts,
                                "__device__ const {} {name}[{n}] = {{{}}};",
                                elem.c(),
                                elems.join(", ")
                            );
                        }
                        _ => {
                            let (v, _) = t.expr(&c.expr, Some(&ty))?;
                            let _ = writeln!(consts, "static constexpr {} {name} = {v};", ty.c());
                        }
                    }
                }
                Item::Fn(f) => {
                    let (params, ret) = &self.fns[name];
                    if let Ty::Tuple(_) = ret {
                        if !tuples.contains(ret) {
                            tuples.push(ret.clone());
                        }
                    }
                    let mut env = HashMap::new();
                    let mut sig = Vec::new();
                    for (p, ty) in f.sig.inputs.iter().zip(params) {
                        let syn::FnArg::Typed(pt) = p else { continue };
                        let Pat::Ident(id) = &*pt.pat else {
                            return Err(format!("a parameter pattern of `{name}`"));
                        };
                        let id = id.ident.to_string();
                        sig.push(match ty {
                            Ty::Array(e, _) => format!("const {}* {id}", e.c()),
                            _ => format!("{} {id}", ty.c()),
                        });
                        env.insert(id, ty.clone());
                    }
                    let head = format!("__device__ inline {} {name}({})", ret.c(), sig.join(", "));
                    let _ = writeln!(protos, "{head};");
                    let mut t = Translator::new(self, env);
                    t.ret = ret.clone();
                    let _ = writeln!(bodies, "{head} {{");
                    t.block(&f.block.stmts, 1, true)?;
                    bodies.push_str(&t.out);
                    bodies.push_str("}\n");
                }
                _ => {}
            }
        }
        let mut out = String::from(
            "\n// The math methods, translated from cuphase's Rust definition (compiler/src/math/libm/),\n\
             // so that the simulator and the GPU compute the same bits.\nnamespace cuphase {\nnamespace math {\n",
        );
        for t in &tuples {
            let Ty::Tuple(ts) = t else { continue };
            let fields: Vec<String> = ts
                .iter()
                .enumerate()
                .map(|(i, t)| format!("{} _{i};", t.c()))
                .collect();
            let _ = writeln!(out, "struct {} {{ {} }};", t.tuple_name(), fields.join(" "));
        }
        out.push_str(&consts);
        out.push_str(&protos);
        out.push_str(&bodies);
        out.push_str("}  // namespace math\n}  // namespace cuphase\n");
        Ok(out)
    }
}

/// The translation of one item's body.
struct Translator<'l, 'a> {
    lib: &'l Library<'a>,
    /// The types of the locals and parameters in scope (a flat map: the library declares
    /// each name with one type within a function).
    env: HashMap<String, Ty>,
    ret: Ty,
    out: String,
    temps: usize,
}

impl<'l, 'a> Translator<'l, 'a> {
    fn new(lib: &'l Library<'a>, env: HashMap<String, Ty>) -> Self {
        Translator {
            lib,
            env,
            ret: Ty::Scalar("f64"),
            out: String::new(),
            temps: 0,
        }
    }

    fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..depth {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// Statements; with `tail`, the block's final expression is the function's value.
    fn block(&mut self, stmts: &[Stmt], depth: usize, tail: bool) -> Result<(), String> {
        for (i, s) in stmts.iter().enumerate() {
            let last = i + 1 == stmts.len();
            match s {
                Stmt::Local(l) => self.local(l, depth)?,
                Stmt::Expr(e, None) if last && tail => self.tail(e, depth)?,
                Stmt::Expr(e, _) => self.stmt_expr(e, depth)?,
                Stmt::Item(_) | Stmt::Macro(_) => {
                    return Err("an item or macro inside a math function".into())
                }
            }
        }
        Ok(())
    }

    fn local(&mut self, l: &syn::Local, depth: usize) -> Result<(), String> {
        let Pat::Type(pt) = &l.pat else {
            return Err("a `let` without a type in the math library".into());
        };
        let ty = ty_of(&pt.ty)?;
        let Some(init) = &l.init else {
            return Err("a `let` without a value".into());
        };
        match (&*pt.pat, &ty) {
            (Pat::Ident(id), Ty::Array(elem, n)) => {
                let name = id.ident.to_string();
                // `[0; N]` only.
                if !matches!(&*init.expr, Expr::Repeat(_)) {
                    return Err(format!("array `{name}` is not `[0; N]`"));
                }
                self.line(depth, &format!("{} {name}[{n}] = {{}};", elem.c()));
                self.env.insert(name, ty.clone());
            }
            (Pat::Ident(id), _) => {
                let name = id.ident.to_string();
                let (v, _) = self.expr(&init.expr, Some(&ty))?;
                self.line(depth, &format!("{} {name} = {};", ty.c(), bare(&v)));
                self.env.insert(name, ty);
            }
            (Pat::Tuple(t), Ty::Tuple(tys)) => {
                let (v, _) = self.expr(&init.expr, Some(&ty))?;
                let temp = format!("tuple{}_", self.temps);
                self.temps += 1;
                self.line(depth, &format!("const {} {temp} = {v};", ty.c()));
                for (i, (p, t)) in t.elems.iter().zip(tys).enumerate() {
                    let Pat::Ident(id) = p else {
                        return Err("a tuple pattern other than names".into());
                    };
                    let name = id.ident.to_string();
                    self.line(depth, &format!("{} {name} = {temp}._{i};", t.c()));
                    self.env.insert(name, t.clone());
                }
            }
            _ => return Err("a `let` pattern outside the math subset".into()),
        }
        Ok(())
    }

    /// The function's value: `return v;`, an `if` whose branches end in values, or a tuple.
    fn tail(&mut self, e: &Expr, depth: usize) -> Result<(), String> {
        match e {
            Expr::If(i) => self.if_stmt(i, depth, true),
            _ => {
                let ret = self.ret.clone();
                let (v, _) = self.expr(e, Some(&ret))?;
                self.line(depth, &format!("return {};", bare(&v)));
                Ok(())
            }
        }
    }

    fn if_stmt(&mut self, i: &syn::ExprIf, depth: usize, tail: bool) -> Result<(), String> {
        let (c, _) = self.expr(&i.cond, None)?;
        self.line(depth, &format!("if ({}) {{", bare(&c)));
        self.block(&i.then_branch.stmts, depth + 1, tail)?;
        match &i.else_branch {
            None => self.line(depth, "}"),
            Some((_, e)) => {
                self.line(depth, "} else {");
                match &**e {
                    Expr::If(inner) => self.if_stmt(inner, depth + 1, tail)?,
                    Expr::Block(b) => self.block(&b.block.stmts, depth + 1, tail)?,
                    _ => return Err("an `else` that is not a block".into()),
                }
                self.line(depth, "}");
            }
        }
        Ok(())
    }

    fn stmt_expr(&mut self, e: &Expr, depth: usize) -> Result<(), String> {
        match e {
            Expr::If(i) => self.if_stmt(i, depth, false),
            Expr::While(w) => {
                let (c, _) = self.expr(&w.cond, None)?;
                self.line(depth, &format!("while ({}) {{", bare(&c)));
                self.block(&w.body.stmts, depth + 1, false)?;
                self.line(depth, "}");
                Ok(())
            }
            Expr::Return(r) => {
                let Some(v) = &r.expr else {
                    return Err("`return` without a value".into());
                };
                let ret = self.ret.clone();
                let (v, _) = self.expr(v, Some(&ret))?;
                self.line(depth, &format!("return {};", bare(&v)));
                Ok(())
            }
            Expr::Assign(a) => {
                let (l, lt) = self.expr(&a.left, None)?;
                let (r, _) = self.expr(&a.right, Some(&lt))?;
                self.line(depth, &format!("{l} = {};", bare(&r)));
                Ok(())
            }
            Expr::Binary(b) if compound(&b.op).is_some() => {
                let (l, lt) = self.expr(&b.left, None)?;
                let (r, _) = self.expr(&b.right, Some(&lt))?;
                let op = compound(&b.op).unwrap_or("=");
                self.line(depth, &format!("{l} {op} {};", bare(&r)));
                Ok(())
            }
            _ => Err("a statement outside the math subset".into()),
        }
    }

    /// An expression's C text (parenthesised wherever it is not an atom) and type. `want` is
    /// the type the context expects, which types unsuffixed literals.
    fn expr(&mut self, e: &Expr, want: Option<&Ty>) -> Result<(String, Ty), String> {
        match e {
            Expr::Lit(l) => lit(&l.lit, want),
            Expr::Paren(p) => self.expr(&p.expr, want),
            Expr::Path(p) => {
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                match segs.as_slice() {
                    [name] => {
                        if let Some(t) = self.env.get(name) {
                            return Ok((name.clone(), t.clone()));
                        }
                        if let Some(t) = self.lib.consts.get(name) {
                            return Ok((name.clone(), t.clone()));
                        }
                        Err(format!("unknown name `{name}`"))
                    }
                    [t, c] => special_const(t, c),
                    _ => Err("a path outside the math subset".into()),
                }
            }
            Expr::Unary(u) => {
                let (v, t) = self.expr(&u.expr, want)?;
                match u.op {
                    UnOp::Neg(_) => Ok((format!("(-{v})"), t)),
                    UnOp::Not(_) if t == Ty::Scalar("bool") => Ok((format!("(!{v})"), t)),
                    _ => Err("`!` on a non-bool, or `*`, in the math library".into()),
                }
            }
            Expr::Binary(b) => {
                let Some(op) = binary(&b.op) else {
                    return Err("an operator outside the math subset".into());
                };
                let cmp = matches!(op, "==" | "!=" | "<" | "<=" | ">" | ">=");
                let logic = matches!(op, "&&" | "||");
                let shift = matches!(op, "<<" | ">>");
                let mut operand_want = if cmp || logic { None } else { want.cloned() };
                // An unsuffixed literal on the left takes the right operand's type (`1.0 - y`
                // with `y: f32` is f32 arithmetic; C would compute it in double).
                if is_unsuffixed_literal(&b.left) && !shift {
                    let (_, rt) = self.expr(&b.right, operand_want.as_ref())?;
                    if !is_unsuffixed_literal(&b.right) {
                        operand_want = Some(rt);
                    }
                }
                let (l, lt) = self.expr(&b.left, operand_want.as_ref())?;
                let right_want = if shift { None } else { Some(&lt) };
                let (r, _) = self.expr(&b.right, right_want)?;
                let t = if cmp || logic { Ty::Scalar("bool") } else { lt };
                Ok((format!("({l} {op} {r})"), t))
            }
            Expr::Cast(c) => {
                let t = ty_of(&c.ty)?;
                let (v, _) = self.expr(&c.expr, None)?;
                Ok((format!("(({}){v})", t.c()), t))
            }
            Expr::Index(i) => {
                let (a, at) = self.expr(&i.expr, None)?;
                let (ix, _) = self.expr(&i.index, Some(&Ty::Scalar("usize")))?;
                let Ty::Array(elem, _) = at else {
                    return Err("indexing a non-array".into());
                };
                Ok((format!("{a}[{ix}]"), *elem))
            }
            Expr::Reference(r) => self.expr(&r.expr, want),
            Expr::Call(c) => self.call(c),
            Expr::MethodCall(m) => self.method(m),
            Expr::Tuple(t) => {
                let Some(Ty::Tuple(tys)) = want.cloned() else {
                    return Err("a tuple where no tuple type is known".into());
                };
                let mut parts = Vec::new();
                for (e, t) in t.elems.iter().zip(&tys) {
                    parts.push(self.expr(e, Some(t))?.0);
                }
                let ty = Ty::Tuple(tys);
                Ok((format!("{}{{{}}}", ty.tuple_name(), parts.join(", ")), ty))
            }
            Expr::If(i) => {
                let (c, _) = self.expr(&i.cond, None)?;
                let (a, at) = self.branch_value(&i.then_branch, want)?;
                let Some((_, els)) = &i.else_branch else {
                    return Err("an `if` value without `else`".into());
                };
                let (b, _) = match &**els {
                    Expr::Block(b) => self.branch_value(&b.block, want)?,
                    other => self.expr(other, want)?,
                };
                Ok((format!("({c} ? {a} : {b})"), at))
            }
            _ => Err("an expression outside the math subset".into()),
        }
    }

    /// The value of a block that is one expression.
    fn branch_value(&mut self, b: &syn::Block, want: Option<&Ty>) -> Result<(String, Ty), String> {
        match b.stmts.as_slice() {
            [Stmt::Expr(e, None)] => self.expr(e, want),
            _ => Err("an `if` value whose branch is not one expression".into()),
        }
    }

    fn call(&mut self, c: &syn::ExprCall) -> Result<(String, Ty), String> {
        let Expr::Path(p) = &*c.func else {
            return Err("a call of a non-path".into());
        };
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        match segs.as_slice() {
            [t, f] if f == "from_bits" => {
                let arg = c.args.first().ok_or("from_bits without an argument")?;
                let (v, _) = self.expr(arg, None)?;
                match t.as_str() {
                    "f64" => Ok((
                        format!("__longlong_as_double((long long){v})"),
                        Ty::Scalar("f64"),
                    )),
                    "f32" => Ok((format!("__uint_as_float({v})"), Ty::Scalar("f32"))),
                    _ => Err("from_bits of another type".into()),
                }
            }
            [name] => {
                let Some((params, ret)) = self.lib.fns.get(name).cloned() else {
                    return Err(format!(
                        "a call of `{name}`, which the library does not define"
                    ));
                };
                let mut args = Vec::new();
                for (a, t) in c.args.iter().zip(&params) {
                    let (v, _) = self.expr(a, Some(t))?;
                    args.push(bare(&v).to_string());
                }
                Ok((format!("{name}({})", args.join(", ")), ret))
            }
            _ => Err("a call outside the math subset".into()),
        }
    }

    /// The methods of the subset: on floats the C math functions of the same meaning, on
    /// integers the intrinsics.
    fn method(&mut self, m: &syn::ExprMethodCall) -> Result<(String, Ty), String> {
        let (x, t) = self.expr(&m.receiver, None)?;
        let mut args = Vec::new();
        for a in &m.args {
            args.push(self.expr(a, Some(&t))?.0);
        }
        let name = m.method.to_string();
        let s = t.scalar();
        let float = s == "f64" || s == "f32";
        let f = |base: &str| {
            if s == "f32" {
                format!("{base}f")
            } else {
                base.to_string()
            }
        };
        let call = |f: String, args: &[String]| {
            let args: Vec<&str> = args.iter().map(|a| bare(a)).collect();
            format!("{f}({})", args.join(", "))
        };
        let with = |a: &[String]| {
            let mut v = vec![x.clone()];
            v.extend_from_slice(a);
            v
        };
        let out = match name.as_str() {
            "mul_add" if float => (call(f("fma"), &with(&args)), t),
            "sqrt" if float => (call(f("sqrt"), &with(&[])), t),
            "abs" if float => (call(f("fabs"), &with(&[])), t),
            "round" if float => (call(f("round"), &with(&[])), t),
            "trunc" if float => (call(f("trunc"), &with(&[])), t),
            "floor" if float => (call(f("floor"), &with(&[])), t),
            "copysign" if float => (call(f("copysign"), &with(&args)), t),
            "is_nan" if float => (call("isnan".into(), &with(&[])), Ty::Scalar("bool")),
            "is_finite" if float => (call("isfinite".into(), &with(&[])), Ty::Scalar("bool")),
            "is_infinite" if float => (call("isinf".into(), &with(&[])), Ty::Scalar("bool")),
            "is_sign_negative" if float => (format!("(signbit({x}) != 0)"), Ty::Scalar("bool")),
            "to_bits" if s == "f64" => (
                format!("((unsigned long long)__double_as_longlong({x}))"),
                Ty::Scalar("u64"),
            ),
            "to_bits" if s == "f32" => (format!("__float_as_uint({x})"), Ty::Scalar("u32")),
            "leading_zeros" if s == "u64" => (
                format!("((unsigned int)__clzll((long long){x}))"),
                Ty::Scalar("u32"),
            ),
            "wrapping_add" if s.starts_with('u') => (format!("({x} + {})", args.join(", ")), t),
            _ => {
                return Err(format!(
                    "method `{name}` on `{s}` is not in the math subset"
                ))
            }
        };
        Ok(out)
    }
}

/// Whether `e` is a literal whose type its context decides (`1.0`, `-2`, `(3)`).
fn is_unsuffixed_literal(e: &Expr) -> bool {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Float(f) => f.suffix().is_empty(),
            Lit::Int(i) => i.suffix().is_empty(),
            _ => false,
        },
        Expr::Unary(u) => is_unsuffixed_literal(&u.expr),
        Expr::Paren(p) => is_unsuffixed_literal(&p.expr),
        _ => false,
    }
}

/// `s` without the parentheses around all of it, if it has them.
fn bare(s: &str) -> &str {
    let Some(inner) = s.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else {
        return s;
    };
    // Whether the first `(` closes at the end: depth never falls to zero inside.
    let mut depth = 0i32;
    for c in inner.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return s;
                }
            }
            _ => {}
        }
    }
    inner
}

/// `f64::INFINITY` and friends, as bit patterns (C has no portable literal for them).
fn special_const(t: &str, c: &str) -> Result<(String, Ty), String> {
    let v = match (t, c) {
        ("f64", "INFINITY") => "__longlong_as_double(0x7ff0000000000000ll)",
        ("f64", "NAN") => "__longlong_as_double(0x7ff8000000000000ll)",
        ("f32", "INFINITY") => "__uint_as_float(0x7f800000u)",
        ("f32", "NAN") => "__uint_as_float(0x7fc00000u)",
        _ => return Err(format!("`{t}::{c}` is not in the math subset")),
    };
    let ty = if t == "f64" { "f64" } else { "f32" };
    Ok((v.to_string(), Ty::Scalar(ty)))
}

/// A literal with its type: the suffix's, else the context's.
fn lit(l: &Lit, want: Option<&Ty>) -> Result<(String, Ty), String> {
    let want = want.map(Ty::scalar).unwrap_or("");
    match l {
        Lit::Float(f) => {
            let ty = match f.suffix() {
                "" if want == "f32" => "f32",
                "f32" => "f32",
                _ => "f64",
            };
            let digits = f.base10_digits();
            let mut text = digits.to_string();
            if !text.contains(['.', 'e', 'E']) {
                text.push_str(".0");
            }
            if ty == "f32" {
                text.push('f');
            }
            Ok((text, Ty::Scalar(ty)))
        }
        Lit::Int(i) => {
            let ty: &'static str = match i.suffix() {
                "" => match want {
                    "f64" | "f32" | "" | "bool" => "i32",
                    "u64" => "u64",
                    "usize" => "usize",
                    "i64" => "i64",
                    "u32" => "u32",
                    _ => "i32",
                },
                "u64" => "u64",
                "usize" => "usize",
                "i64" => "i64",
                "u32" => "u32",
                "i32" => "i32",
                "f64" => "f64",
                "f32" => "f32",
                other => return Err(format!("literal suffix `{other}`")),
            };
            // Hex stays hex (the library writes bit patterns in hex); the value is the same.
            let raw = i.token().to_string().replace('_', "");
            let body = raw.trim_end_matches(i.suffix()).to_string();
            let text = match ty {
                "u64" | "usize" => format!("{body}ull"),
                "i64" => format!("{body}ll"),
                "u32" => format!("{body}u"),
                "f64" => format!("{body}.0"),
                "f32" => format!("{body}.0f"),
                _ => body,
            };
            Ok((text, Ty::Scalar(ty)))
        }
        Lit::Bool(b) => Ok((b.value.to_string(), Ty::Scalar("bool"))),
        _ => Err("a literal outside the math subset".into()),
    }
}

fn binary(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add(_) => "+",
        BinOp::Sub(_) => "-",
        BinOp::Mul(_) => "*",
        BinOp::Div(_) => "/",
        BinOp::Rem(_) => "%",
        BinOp::And(_) => "&&",
        BinOp::Or(_) => "||",
        BinOp::BitXor(_) => "^",
        BinOp::BitAnd(_) => "&",
        BinOp::BitOr(_) => "|",
        BinOp::Shl(_) => "<<",
        BinOp::Shr(_) => ">>",
        BinOp::Eq(_) => "==",
        BinOp::Lt(_) => "<",
        BinOp::Le(_) => "<=",
        BinOp::Ne(_) => "!=",
        BinOp::Ge(_) => ">=",
        BinOp::Gt(_) => ">",
        _ => return None,
    })
}

fn compound(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::AddAssign(_) => "+=",
        BinOp::SubAssign(_) => "-=",
        BinOp::MulAssign(_) => "*=",
        BinOp::DivAssign(_) => "/=",
        BinOp::BitXorAssign(_) => "^=",
        BinOp::BitAndAssign(_) => "&=",
        BinOp::BitOrAssign(_) => "|=",
        BinOp::ShlAssign(_) => "<<=",
        BinOp::ShrAssign(_) => ">>=",
        _ => return None,
    })
}
