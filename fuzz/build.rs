//! Generates `CUPHASE_FUZZ_KERNELS` (default 2000) random well-formed kernels into
//! `$OUT_DIR/kernels.rs`, deterministically from `CUPHASE_FUZZ_SEED` (default 1): arithmetic
//! over every integer width and both float types, casts, selects, methods, `if`, loops,
//! thread-local arrays, and shared memory with barriers; saturating arithmetic, byte and bit
//! reversal, path calls, exact float methods, the math methods (`exp` .. `hypot`),
//! `checked_*`/`overflowing_*` methods and `Option` values, array copies and element loops, array literals and `DeviceStruct` structs through
//! helpers, with array fields indexed by computed indices (some past the end). Every kernel
//! writes one i64 and one f64 per thread.

use std::fmt::Write as _;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u64) as usize]
    }
}

const INTS: &[&str] = &["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"];
const FLOATS: &[&str] = &["f32", "f64"];

fn is_float(t: &str) -> bool {
    t.starts_with('f')
}
fn is_signed(t: &str) -> bool {
    t.starts_with('i')
}
fn bits(t: &str) -> u32 {
    t[1..].parse().unwrap_or(32)
}

struct Gen {
    rng: Rng,
    /// A second stream for features added later (thread-local arrays), so that adding them
    /// leaves the kernels drawn from `rng` as they were for a given seed.
    extra: Rng,
    /// Variables in scope: (name, type).
    vars: Vec<(String, &'static str)>,
}

impl Gen {
    fn literal(&mut self, t: &str) -> String {
        if is_float(t) {
            let v =
                [0.0, 1.0, -1.5, 0.25, 3.0e3, -7.125, 1.0e-3, 65504.0][self.rng.below(8) as usize];
            return format!("({v:?}{t})");
        }
        let b = bits(t);
        let v: i128 = match self.rng.below(6) {
            0 => 0,
            1 => 1,
            2 => 3,
            3 => {
                if is_signed(t) {
                    -(1i128 << (b - 1))
                } else {
                    (1i128 << b) - 1
                }
            }
            4 => {
                if is_signed(t) {
                    -1
                } else {
                    7
                }
            }
            _ => (self.rng.below(1000) as i128) % (1i128 << (b - 1)),
        };
        if v < 0 {
            format!("({v}{t})")
        } else {
            format!("{v}{t}")
        }
    }

    fn leaf(&mut self, t: &'static str) -> String {
        let same: Vec<String> = self
            .vars
            .iter()
            .filter(|(_, vt)| *vt == t)
            .map(|(n, _)| n.clone())
            .collect();
        match self.rng.below(4) {
            0 if !same.is_empty() => self.rng.pick(&same).clone(),
            1 => self.literal(t),
            _ => {
                let (n, vt) = self.rng.pick(&self.vars).clone();
                if vt == t {
                    n
                } else {
                    format!("({n} as {t})")
                }
            }
        }
    }

    fn expr(&mut self, t: &'static str, depth: u32) -> String {
        if depth == 0 || self.rng.below(5) == 0 {
            return self.leaf(t);
        }
        let d = depth - 1;
        if is_float(t) {
            match self.rng.below(14) {
                0..=3 => {
                    let op = self.rng.pick(&["+", "-", "*", "/", "%"]);
                    format!("({} {op} {})", self.expr(t, d), self.expr(t, d))
                }
                4 => format!("{}.abs()", self.wrap(t, d)),
                5 => format!("{}.sqrt()", self.wrap(t, d)),
                6 => format!("{}.floor()", self.wrap(t, d)),
                7 => format!("{}.min({})", self.wrap(t, d), self.expr(t, d)),
                8 => format!(
                    "{}.mul_add({}, {})",
                    self.wrap(t, d),
                    self.expr(t, d),
                    self.expr(t, d)
                ),
                9 => {
                    let from = *self.rng.pick(INTS);
                    format!("({} as {t})", self.expr(from, d))
                }
                10 => format!(
                    "(if {} {{ {} }} else {{ {} }})",
                    self.cond(d),
                    self.expr(t, d),
                    self.expr(t, d)
                ),
                // The math methods: one definition on both back ends, so bit-equal too.
                11 => {
                    let m = self.rng.pick(&[
                        "exp", "exp2", "exp_m1", "ln", "log2", "log10", "ln_1p", "sin", "cos",
                        "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh",
                        "atanh", "cbrt",
                    ]);
                    format!("{}.{m}()", self.wrap(t, d))
                }
                12 => {
                    let m = self.rng.pick(&["powf", "atan2", "hypot"]);
                    format!("{}.{m}({})", self.wrap(t, d), self.expr(t, d))
                }
                _ => format!("(-{})", self.wrap(t, d)),
            }
        } else {
            match self.rng.below(16) {
                0..=4 => {
                    let op = self.rng.pick(&["+", "-", "*", "&", "|", "^"]);
                    format!("({} {op} {})", self.expr(t, d), self.expr(t, d))
                }
                5 => {
                    let op = self.rng.pick(&["/", "%"]);
                    // Mostly divisors that cannot be zero; sometimes a raw one (a kernel panic).
                    if self.rng.below(8) == 0 {
                        format!("({} {op} {})", self.expr(t, d), self.expr(t, d))
                    } else {
                        format!("({} {op} ({} | 1))", self.expr(t, d), self.expr(t, d))
                    }
                }
                6 => {
                    let op = self.rng.pick(&["<<", ">>"]);
                    format!("({} {op} {})", self.expr(t, d), self.expr("u32", d))
                }
                7 => {
                    let from = *self.rng.pick(&[
                        "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64",
                    ]);
                    format!("({} as {t})", self.expr(from, d))
                }
                8 => format!(
                    "(if {} {{ {} }} else {{ {} }})",
                    self.cond(d),
                    self.expr(t, d),
                    self.expr(t, d)
                ),
                9 => format!("{}.max({})", self.wrap(t, d), self.expr(t, d)),
                10 => format!("{}.wrapping_mul({})", self.wrap(t, d), self.expr(t, d)),
                11 => format!("({}.count_ones() as {t})", self.wrap(t, d)),
                12 => format!("{}.rotate_left({})", self.wrap(t, d), self.expr("u32", d)),
                13 if is_signed(t) => format!("{}.abs()", self.wrap(t, d)),
                14 => format!("({}.trailing_zeros() as {t})", self.wrap(t, d)),
                _ => format!("(!{})", self.wrap(t, d)),
            }
        }
    }

    /// An expression as a method receiver.
    fn wrap(&mut self, t: &'static str, d: u32) -> String {
        let e = self.expr(t, d);
        if e.starts_with('(') {
            e
        } else {
            format!("({e})")
        }
    }

    fn cond(&mut self, d: u32) -> String {
        let t = *self.rng.pick(&["i32", "u32", "f32", "i64", "u8", "f64"]);
        let op = self.rng.pick(&["<", "<=", "==", "!=", ">", ">="]);
        format!(
            "({} {op} {})",
            self.expr(t, d.min(2)),
            self.expr(t, d.min(2))
        )
    }
}

fn kernel(g: &mut Gen, i: usize, out: &mut String) {
    g.vars = vec![
        ("t".into(), "u32"),
        ("p".into(), "i32"),
        ("q".into(), "u32"),
        ("a".into(), "i64"),
        ("b".into(), "f32"),
        ("c".into(), "f64"),
        ("s".into(), "u8"),
        ("h".into(), "i16"),
    ];
    let mut body = String::new();
    let lets = 2 + g.rng.below(4);
    for v in 0..lets {
        let t: &'static str = if g.rng.below(3) == 0 {
            *g.rng.pick(FLOATS)
        } else {
            *g.rng.pick(INTS)
        };
        let e = g.expr(t, 3);
        let name = format!("v{v}");
        match g.rng.below(5) {
            0 => {
                // A loop accumulating with a uniform trip count.
                let _ = writeln!(body, "        let mut {name}: {t} = {};", g.literal(t));
                let step = g.expr(t, 2);
                let op = if is_float(t) {
                    "+"
                } else {
                    *g.rng.pick(&["+", "^", "|"])
                };
                let _ = writeln!(body, "        for k in 0..(q % 5) {{ let kk = k; {name} = {name} {op} {step}; let _ = kk; }}");
            }
            1 => {
                let _ = writeln!(body, "        let mut {name}: {t} = {e};");
                let c = g.cond(2);
                let e2 = g.expr(t, 2);
                let _ = writeln!(body, "        if {c} {{ {name} = {e2}; }}");
            }
            _ => {
                let _ = writeln!(body, "        let {name}: {t} = {e};");
            }
        }
        g.vars.push((name, t));
    }
    let ti = *g.rng.pick(INTS);
    let tf = *g.rng.pick(FLOATS);
    let ei = g.expr(ti, 3);
    let ef = g.expr(tf, 3);
    let shared = g.rng.below(3) == 0;
    // One kernel in three calls helpers (drawn from `extra`, so a seed's other code stays):
    // one with an early return over a concrete type, one generic, one with a `&mut` parameter.
    let mut helper_calls = String::new();
    if g.extra.below(3) == 0 {
        std::mem::swap(&mut g.rng, &mut g.extra);
        let saved = std::mem::replace(&mut g.vars, vec![("x".into(), "i64"), ("y".into(), "i64")]);
        let t = *g.rng.pick(INTS);
        g.vars = vec![("x".into(), t), ("y".into(), t)];
        let e1 = g.expr(t, 2);
        let e2 = g.expr(t, 2);
        let c = g.cond(1);
        let _ = writeln!(
            out,
            "#[device]\nfn h{i}(x: {t}, y: {t}) -> {t} {{\n    let z: {t} = {e1};\n    if {c} {{\n        return z;\n    }}\n    {e2}\n}}\n"
        );
        let op = *g.rng.pick(&["+", "-", "*"]);
        let _ = writeln!(
            out,
            "#[device]\nfn gh{i}<T: Num>(x: T, y: T) -> T {{\n    x {op} y\n}}\n"
        );
        let _ = writeln!(
            out,
            "#[device]\nfn m{i}(acc: &mut i64, v: {t}) {{\n    *acc = *acc ^ (v as i64);\n}}\n"
        );
        g.vars = saved;
        let a1 = g.expr(t, 2);
        let a2 = g.expr(t, 2);
        let a3 = g.expr(t, 1);
        let a4 = g.expr(t, 1);
        let _ = writeln!(
            helper_calls,
            "        let hv: {t} = h{i}({a1}, {a2});\n        m{i}(&mut ri, hv);\n        m{i}(&mut ri, gh{i}({a3}, {a4}));"
        );
        std::mem::swap(&mut g.rng, &mut g.extra);
    }
    // One kernel in eight is compiled with bounds checks and indexes an array field past its
    // end on some threads (without checks, as in release builds by default, the GPU's choice
    // among the elements would not fault where the simulator does).
    let oob = g.extra.below(8) == 0;
    let attr = if oob { "#[kernel(bounds_checks = true)]" } else { "#[kernel]" };
    let _ = writeln!(out, "{attr}\npub fn k{i}(oi: &mut [i64], of: &mut [f64], xa: &[i64], xb: &[f32], xc: &[f64], p: i32, q: u32) {{");
    if shared {
        let _ = writeln!(out, "    let tile = shared::<[i64; 64]>();");
    }
    let _ = writeln!(out, "    let t = thread_idx().x;\n    let g = global_idx().x;\n    let n = oi.len() as u32;\n    let gi = if g < n {{ g }} else {{ 0 }};");
    let _ = writeln!(out, "    let a: i64 = xa[gi];\n    let b: f32 = xb[gi];\n    let c: f64 = xc[gi];\n    let s: u8 = (a as u8) ^ (t as u8);\n    let h: i16 = (p as i16).wrapping_mul(t as i16);");
    let _ = writeln!(
        out,
        "    let mut ri: i64 = 0;\n    let mut rf: f64 = 0.0;\n    {{"
    );
    out.push_str(&body);
    let _ = writeln!(
        out,
        "        ri = ({ei}) as i64;\n        rf = ({ef}) as f64;"
    );
    out.push_str(&helper_calls);
    // One kernel in three also folds a thread-local array into `ri` (drawn from `extra`).
    if g.extra.below(3) == 0 {
        std::mem::swap(&mut g.rng, &mut g.extra);
        let t = *g.rng.pick(INTS);
        let len = 2 + g.rng.below(6);
        let init = g.literal(t);
        let step = g.expr(t, 2);
        let op = *g.rng.pick(&["+", "^", "|"]);
        let _ = writeln!(out, "        let mut la: [{t}; {len}] = [{init}; {len}];");
        let _ = writeln!(
            out,
            "        for k in 0..{len}u32 {{ la[k] = la[k] {op} {step}; }}"
        );
        let _ = writeln!(out, "        ri = ri ^ (la[t % {len}] as i64);");
        std::mem::swap(&mut g.rng, &mut g.extra);
    }
    // One kernel in three: half-precision arithmetic (drawn from `extra`).
    if g.extra.below(3) == 0 {
        std::mem::swap(&mut g.rng, &mut g.extra);
        let ht = *g.rng.pick(&["f16", "bf16"]);
        let x = g.expr("f32", 2);
        let lit = [0.5f32, 1.5, -2.25, 3.0e2, 1.0e-2][g.rng.below(5) as usize];
        let op1 = *g.rng.pick(&["+", "-", "*", "/"]);
        let op2 = *g.rng.pick(&["+", "-", "*"]);
        let _ = writeln!(out, "        let hx = {ht}::from_f32({x});");
        let _ = writeln!(
            out,
            "        let hy = (hx {op1} {ht}::from_f32({lit:?})) {op2} -hx;"
        );
        let _ = writeln!(
            out,
            "        rf = rf + hy.to_f64() + (hx < hy) as i32 as f64;"
        );
        std::mem::swap(&mut g.rng, &mut g.extra);
    }
    // One kernel in two: the newer integer and float methods (exact ones), path calls, an
    // array literal and a struct through a helper (drawn from `extra`).
    if g.extra.below(2) == 0 {
        std::mem::swap(&mut g.rng, &mut g.extra);
        let t = *g.rng.pick(INTS);
        let m = *g.rng.pick(&["saturating_add", "saturating_sub", "saturating_mul"]);
        let (x, y, x2, y2, x3) = (
            g.expr(t, 2),
            g.expr(t, 2),
            g.expr(t, 1),
            g.expr(t, 1),
            g.expr(t, 1),
        );
        let _ = writeln!(
            out,
            "        let mi: {t} = ({x}).{m}({y}).swap_bytes() ^ {t}::max(({x2}).reverse_bits(), {y2});"
        );
        let _ = writeln!(
            out,
            "        ri = ri ^ (mi as i64) ^ (({x3}).leading_ones() + ({x3}).trailing_ones()) as i64;"
        );
        let f = *g.rng.pick(FLOATS);
        let (fx, fy, fz) = (g.expr(f, 2), g.expr(f, 2), g.expr(f, 1));
        // (A NaN's sign is not Rust's to promise: `copysign` takes the sign of a number.)
        let _ = writeln!(
            out,
            "        let mf: {f} = ({fx}).signum() + ({fy}).fract() + {f}::copysign(1.5, if ({fz}).is_nan() {{ 1.0 }} else {{ {fz} }});"
        );
        let _ = writeln!(
            out,
            "        rf = rf + mf as f64 + (({fx}).is_nan() as i32 + ({fy}).is_finite() as i32) as f64;"
        );
        let (e1, e2, e3) = (g.expr(t, 1), g.expr(t, 1), g.expr(t, 1));
        let _ = writeln!(
            out,
            "        let al = [{e1}, {e2}, {e3}];\n        ri = ri ^ (al[t % 3] as i64);"
        );
        let (sa, sb, sc, sx, sy, k) = (
            g.expr("i32", 2),
            g.expr("f32", 2),
            g.expr("u8", 1),
            g.expr("f64", 2),
            g.expr("u16", 1),
            g.expr("i32", 1),
        );
        let _ = writeln!(
            out,
            "        let sp = FzP {{ a: {sa}, b: {sb}, c: {sc}, d: FzQ {{ x: {sx}, y: {sy} }} }};"
        );
        let _ = writeln!(
            out,
            "        let mut sq = fz_mix(sp, {k});\n        sq.d.y = sq.d.y.wrapping_add(sp.c as u16);\n        ri = ri ^ (sq.a as i64) ^ (sq.c as i64) ^ (sq.d.y as i64);\n        rf = rf + sq.b as f64 + sq.d.x;"
        );
        // A struct with array fields (of scalars, of structs, of arrays) through computed
        // indices.
        let (v1, v2, v3, v4) = (
            g.expr("i32", 1),
            g.expr("i32", 1),
            g.expr("i32", 1),
            g.expr("i32", 2),
        );
        let (wx, wy, m1, m2) = (
            g.expr("f64", 1),
            g.expr("u16", 1),
            g.expr("u16", 1),
            g.expr("u16", 1),
        );
        let modulus = if oob { 4 } else { 3 };
        let shift = g.rng.below(5);
        let _ = writeln!(
            out,
            "        let mut sa = FzA {{ v: [{v1}, {v2}, {v3}], w: [FzQ {{ x: {wx}, y: {wy} }}, FzQ {{ x: 0.25, y: 7 }}], m: [[{m1}; 2], [{m2}, 3]] }};\n        let sk = (t as usize + {shift}) % {modulus};\n        sa.v[sk] = sa.v[sk].wrapping_add({v4});\n        sa.w[sk % 2].x = sa.w[sk % 2].x * 0.5 + sa.v[0] as f64;\n        sa.m[sk % 2][1 - sk % 2] ^= sa.w[0].y;"
        );
        let _ = writeln!(
            out,
            "        let sb = fz_arr(sa, sk % 3);\n        ri = ri ^ (sb.v[0] as i64) ^ ((sb.v[2] as i64) << 3) ^ (sb.m[1][0] as i64) ^ ((sb.m[0][1] as i64) << 7) ^ (sb.w[1].y as i64);\n        for v in sb.v {{\n            ri = ri.wrapping_add(v as i64);\n        }}\n        rf = rf + sb.w[1].x + sb.w[0].x;"
        );
        std::mem::swap(&mut g.rng, &mut g.extra);
    }
    // One kernel in two: `checked_*` and `overflowing_*` methods, `Option` values through
    // `if`, `match` with a guard and the `Option` methods, an array copy and an element loop
    // (drawn from `extra`).
    if g.extra.below(2) == 0 {
        std::mem::swap(&mut g.rng, &mut g.extra);
        let t = *g.rng.pick(INTS);
        let (x, y) = (g.expr(t, 2), g.expr(t, 2));
        let checked = *g.rng.pick(&[
            "checked_add",
            "checked_sub",
            "checked_mul",
            "checked_div",
            "checked_rem",
            "checked_div_euclid",
            "checked_rem_euclid",
        ]);
        let unary = if is_signed(t) {
            *g.rng.pick(&["checked_neg", "checked_abs", "checked_ilog2", "checked_isqrt"])
        } else {
            *g.rng.pick(&["checked_neg", "checked_next_power_of_two", "checked_ilog10"])
        };
        let over = *g.rng.pick(&[
            "overflowing_add",
            "overflowing_sub",
            "overflowing_mul",
        ]);
        let c = g.cond(1);
        let lit = g.literal(t);
        let _ = writeln!(
            out,
            "        let op_x: {t} = {x};\n        let op_y: {t} = {y};\n        let op_c = op_x.{checked}(op_y);\n        let op_p = op_x.checked_pow((op_y as u32) % 9).or(op_x.checked_shl(op_y as u32));"
        );
        // (`checked_ilog2` and the rest give a `u32`: compared as `i64`.)
        let _ = writeln!(
            out,
            "        let op_u = op_y.{unary}().map_or(-1i64, |v| v as i64);\n        let op_v = if {c} {{ op_c }} else {{ op_p.map(|v| v ^ op_x) }};"
        );
        let _ = writeln!(
            out,
            "        let op_w = match op_v {{\n            Some(v) if v > op_x => v.wrapping_sub(op_x),\n            Some(v) => v,\n            None => {lit},\n        }};\n        let (op_o, op_f) = op_x.{over}(op_y);"
        );
        let _ = writeln!(
            out,
            "        ri = ri ^ (op_w as i64) ^ (op_o as i64) ^ (op_f as i64) ^ op_u ^ (op_c.is_some_and(|v| v > op_y) as i64) ^ (op_p.unwrap_or_default() as i64);\n        if let Some(v) = op_c.filter(|v| *v != op_y) {{\n            ri = ri.wrapping_add(v as i64);\n        }}"
        );
        let (e1, e2, e3) = (g.expr(t, 1), g.expr(t, 1), g.expr(t, 1));
        let _ = writeln!(
            out,
            "        let op_a: [{t}; 3] = [{e1}, {e2}, {e3}];\n        let mut op_b = op_a;\n        op_b[t % 3] = op_x;\n        for (k, &v) in op_b.iter().enumerate() {{\n            ri = ri.wrapping_add((v as i64).wrapping_mul(k as i64 + 1));\n        }}\n        for v in op_a {{\n            ri = ri ^ (v as i64);\n        }}"
        );
        std::mem::swap(&mut g.rng, &mut g.extra);
    }
    let _ = writeln!(out, "    }}");
    // One kernel in three: warp operations, where every thread of the block is (drawn from
    // `extra`).
    if g.extra.below(3) == 0 {
        std::mem::swap(&mut g.rng, &mut g.extra);
        let op = *g.rng.pick(&[
            "warp_shuffle_xor",
            "warp_shuffle_down",
            "warp_shuffle_up",
            "warp_shuffle",
        ]);
        let lane = g.rng.below(40);
        let _ = writeln!(out, "    ri = ri ^ {op}(ri, {lane}u32);");
        let _ = writeln!(out, "    rf = rf + {op}(rf, {lane}u32);");
        let _ = writeln!(out, "    ri = ri + warp_ballot(ri > 0) as i64 + warp_any(rf > 1.0) as i64 + 2 * warp_all(ri != 3) as i64;");
        std::mem::swap(&mut g.rng, &mut g.extra);
    }
    if shared {
        let _ = writeln!(
            out,
            "    if t < 64 {{\n        tile[t] = ri;\n    }}\n    sync_block_threads();"
        );
        let _ = writeln!(
            out,
            "    let from = if t < 64 {{ tile[(t + 1) % 64] }} else {{ 0 }};\n    ri = ri ^ from;"
        );
    }
    let _ = writeln!(
        out,
        "    if g < n {{\n        oi[g] = ri;\n        of[g] = rf;\n    }}\n}}\n"
    );
}

fn main() {
    println!("cargo:rerun-if-env-changed=CUPHASE_FUZZ_KERNELS");
    println!("cargo:rerun-if-env-changed=CUPHASE_FUZZ_SEED");
    let n: usize = std::env::var("CUPHASE_FUZZ_KERNELS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let seed: u64 = std::env::var("CUPHASE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mut g = Gen {
        rng: Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D)),
        vars: Vec::new(),
        extra: Rng(0xD1B5_4A32_D192_ED03 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
    };
    let mut out = String::from("use cuphase::half::{bf16, f16};\nuse cuphase::prelude::*;\n\n");
    // The structs and the struct helper the kernels share.
    out.push_str(
        "#[repr(C)]\n#[derive(Clone, Copy, DeviceStruct)]\npub struct FzQ {\n    pub x: f64,\n    pub y: u16,\n}\n\n\
         #[repr(C)]\n#[derive(Clone, Copy, DeviceStruct)]\npub struct FzP {\n    pub a: i32,\n    pub b: f32,\n    pub c: u8,\n    pub d: FzQ,\n}\n\n\
         #[repr(C)]\n#[derive(Clone, Copy, DeviceStruct)]\npub struct FzA {\n    pub v: [i32; 3],\n    pub w: [FzQ; 2],\n    pub m: [[u16; 2]; 2],\n}\n\n\
         #[device]\nfn fz_arr(mut a: FzA, k: usize) -> FzA {\n    a.v[k] = a.v[(k + 1) % 3] ^ a.v[k];\n    a.w[0] = a.w[1];\n    a.m[1] = a.m[0];\n    a\n}\n\n\
         #[device]\nfn fz_mix(p: FzP, k: i32) -> FzP {\n    if k < 0 {\n        return FzP { a: p.a.wrapping_mul(k), b: -p.b, c: p.c ^ 0x5a, d: p.d };\n    }\n    let q = FzQ { x: p.d.x * 0.5, y: p.d.y.rotate_left(3) };\n    FzP { a: p.a ^ k, b: p.b + 1.0, c: p.c.wrapping_add(1), d: q }\n}\n\n",
    );
    for i in 0..n {
        kernel(&mut g, i, &mut out);
    }
    let _ = writeln!(out, "pub type Run = fn(&Device, Launch, &mut Buffer<i64>, &mut Buffer<f64>, &Buffer<i64>, &Buffer<f32>, &Buffer<f64>, i32, u32) -> Result<(), Error>;");
    let _ = writeln!(
        out,
        "pub fn kernels() -> Vec<(&'static str, Run)> {{\n    vec!["
    );
    for i in 0..n {
        let _ = writeln!(out, "        (\"k{i}\", |d, l, oi, of, a, b, c, p, q| k{i}.launch(d, l, oi, of, a, b, c, p, q)),");
    }
    let _ = writeln!(out, "    ]\n}}");
    let _ = writeln!(out, "pub fn sources() -> Vec<&'static str> {{\n    vec![");
    for i in 0..n {
        let _ = writeln!(out, "        k{i}.cuda_source(),");
    }
    let _ = writeln!(out, "    ]\n}}");
    let dir = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    std::fs::write(format!("{dir}/kernels.rs"), out)
        .unwrap_or_else(|e| panic!("writing kernels.rs: {e}"));
}
