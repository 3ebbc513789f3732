//! `print!`/`println!` in kernels, on the simulator: the same text CUDA's `printf` writes for
//! the format `#[kernel]` gives it (integers and `{:.N}` as Rust writes them, `{}` of a float
//! as C's `%g`), one write per call, at most [`LINE_LIMIT`] calls a launch.
//!
//! Takes the values and the format of each call from generated code; gives the text to the
//! process's standard output, or to a capture (`capture`, for tests).

use crate::dim3::Dim3;
use half::{bf16, f16};
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The most `print!`/`println!` calls one simulated launch writes; the rest are counted and
/// dropped, with one line that says how many (a million-thread launch printing once per
/// thread would otherwise flood the terminal).
pub const LINE_LIMIT: u64 = 10_000;

/// How one value is formatted: `{:<W.P}` and friends.
#[derive(Clone, Copy, Debug, Default)]
pub struct Spec {
    /// `<`: left-aligned in its width (numbers are right-aligned by default, `bool` left).
    pub left: bool,
    /// `>`: right-aligned in its width.
    pub right: bool,
    /// `0`: padded with zeros after the sign (numbers).
    pub zero: bool,
    /// The width, 0 for none.
    pub width: u32,
    /// The precision (digits after the point of a float), if given.
    pub precision: Option<u32>,
}

/// A scalar a kernel may print.
pub trait Printable: Copy {
    /// Appends the value's text, without padding.
    fn text(self, out: &mut String, precision: Option<u32>);
    /// Whether it is a number (right-aligned, zero-padded by `0`).
    const NUMBER: bool = true;
}

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl Printable for $t {
            fn text(self, out: &mut String, _: Option<u32>) {
                let _ = write!(out, "{self}");
            }
        }
    )*};
}
ints!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

impl Printable for bool {
    fn text(self, out: &mut String, _: Option<u32>) {
        out.push_str(if self { "true" } else { "false" });
    }
    const NUMBER: bool = false;
}

impl Printable for f64 {
    fn text(self, out: &mut String, precision: Option<u32>) {
        if self.is_nan() {
            out.push_str(if self.is_sign_negative() {
                "-nan"
            } else {
                "nan"
            });
        } else if self.is_infinite() {
            out.push_str(if self < 0.0 { "-inf" } else { "inf" });
        } else {
            match precision {
                Some(p) => {
                    let _ = write!(out, "{self:.*}", p as usize);
                }
                None => general(self, out),
            }
        }
    }
}

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl Printable for $t {
            fn text(self, out: &mut String, precision: Option<u32>) {
                f64::from(self).text(out, precision);
            }
        }
    )*};
}
floats!(f32, f16, bf16);

/// C's `%g`: six significant digits, trailing zeros removed, the exponent form where the
/// exponent is below -4 or at least 6.
fn general(v: f64, out: &mut String) {
    if v == 0.0 {
        out.push_str(if v.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    // Rounded to six significant digits first: that decides the exponent.
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        let _ = write!(out, "{}e{sign}{:02}", trim(mantissa), exp.abs());
    } else {
        let digits = (5 - exp).max(0) as usize;
        out.push_str(&trim(&format!("{v:.digits$}")));
    }
}

/// Appends `v` formatted as `spec` says.
pub fn push<T: Printable>(out: &mut String, v: T, spec: Spec) {
    let mut text = String::new();
    v.text(&mut text, spec.precision);
    let len = text.chars().count();
    let width = spec.width as usize;
    if len >= width {
        out.push_str(&text);
        return;
    }
    let pad = width - len;
    let left = spec.left || (!T::NUMBER && !spec.right);
    if spec.zero && T::NUMBER && !text.ends_with("inf") && !text.ends_with("nan") {
        let (sign, digits) = match text.strip_prefix('-') {
            Some(rest) => ("-", rest),
            None => ("", text.as_str()),
        };
        out.push_str(sign);
        out.extend(std::iter::repeat_n('0', pad));
        out.push_str(digits);
    } else if left {
        out.push_str(&text);
        out.extend(std::iter::repeat_n(' ', pad));
    } else {
        out.extend(std::iter::repeat_n(' ', pad));
        out.push_str(&text);
    }
}

/// What a launch has printed so far.
#[derive(Debug, Default)]
pub struct Printer {
    ids: bool,
    calls: AtomicU64,
}

/// Text captured instead of written to standard output, while a `capture` runs.
static CAPTURE: Mutex<Option<String>> = Mutex::new(None);

impl Printer {
    /// A launch's printer; `ids` starts each call's text with its block and thread.
    pub const fn new(ids: bool) -> Self {
        Printer {
            ids,
            calls: AtomicU64::new(0),
        }
    }

    /// Writes the text of one call, by thread `thread` of block `block`.
    pub fn write(&self, block: Dim3, thread: Dim3, text: &str) {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        if n >= LINE_LIMIT {
            return;
        }
        if self.ids {
            emit(&format!("{}{text}", ids_prefix(block, thread)));
        } else {
            emit(text);
        }
    }

    /// Ends the launch: says how many calls were dropped, if any.
    pub fn finish(&self) {
        let n = self.calls.load(Ordering::Relaxed);
        if n > LINE_LIMIT {
            emit(&format!(
                "cuphase: {} more print!/println! calls of this launch dropped (the simulator writes at most {LINE_LIMIT} a launch)\n",
                n - LINE_LIMIT
            ));
        }
    }
}

/// What starts a call's text under [`Launch::print_ids`](crate::Launch::print_ids) (the CUDA
/// C's `printf` writes the same).
pub fn ids_prefix(block: Dim3, thread: Dim3) -> String {
    format!(
        "[block ({}, {}, {}) thread ({}, {}, {})] ",
        block.x, block.y, block.z, thread.x, thread.y, thread.z
    )
}

fn emit(text: &str) {
    let mut capture = CAPTURE.lock().unwrap_or_else(|p| p.into_inner());
    match capture.as_mut() {
        Some(s) => s.push_str(text),
        None => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
    }
}

/// Runs `f`, returning what simulated kernels printed meanwhile instead of writing it to
/// standard output (for tests; one capture at a time: a second waits for the first).
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, String) {
    static ONE: Mutex<()> = Mutex::new(());
    let _one = ONE.lock().unwrap_or_else(|p| p.into_inner());
    *CAPTURE.lock().unwrap_or_else(|p| p.into_inner()) = Some(String::new());
    let r = f();
    let text = CAPTURE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
        .unwrap_or_default();
    (r, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt<T: Printable>(v: T, spec: Spec) -> String {
        let mut s = String::new();
        push(&mut s, v, spec);
        s
    }

    /// `%g` as C writes it, and widths, alignment and zeros as Rust's (and C's) do.
    #[test]
    fn values_are_written_as_printf_writes_them() {
        let plain = Spec::default();
        for (v, want) in [
            (1.0f64, "1"),
            (0.1, "0.1"),
            (1.0 / 3.0, "0.333333"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (-2.5, "-2.5"),
            (999999.5, "1e+06"),
            (f64::INFINITY, "inf"),
            (-0.0, "-0"),
        ] {
            assert_eq!(fmt(v, plain), want, "{v}");
        }
        let p3 = Spec {
            precision: Some(3),
            ..plain
        };
        assert_eq!(fmt(2.0f32 / 3.0, p3), "0.667");
        let w6 = Spec { width: 6, ..plain };
        assert_eq!(fmt(42u32, w6), "    42");
        assert_eq!(fmt(true, w6), "true  ");
        assert_eq!(fmt(-42i32, Spec { zero: true, ..w6 }), "-00042");
        assert_eq!(fmt(42i64, Spec { left: true, ..w6 }), "42    ");
        assert_eq!(fmt(false, Spec { right: true, ..w6 }), " false");
    }

    #[test]
    fn a_launch_writes_at_most_the_limit_and_says_how_many_it_dropped() {
        let ((), text) = capture(|| {
            let p = Printer::new(false);
            for t in 0..LINE_LIMIT + 5 {
                p.write(Dim3::new(0, 0, 0), Dim3::new(0, 0, 0), &format!("{t}\n"));
            }
            p.finish();
        });
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len() as u64, LINE_LIMIT + 1);
        assert_eq!(lines[0], "0");
        assert_eq!(lines[LINE_LIMIT as usize - 1], (LINE_LIMIT - 1).to_string());
        assert!(lines[lines.len() - 1].contains("5 more print!/println! calls"));
    }

    #[test]
    fn ids_start_each_call_with_its_block_and_thread() {
        let ((), text) = capture(|| {
            let p = Printer::new(true);
            p.write(Dim3::new(1, 0, 0), Dim3::new(31, 2, 0), "x\n");
        });
        assert_eq!(text, "[block (1, 0, 0) thread (31, 2, 0)] x\n");
    }
}
