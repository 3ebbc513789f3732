//! `print!`/`println!` in kernels: the format string read into text and values.

use super::{Expr, Handle};

/// A piece of a `print!`'s output.
#[derive(Clone, Debug)]
pub enum PrintPiece {
    /// Literal text (`{{` and `}}` already read as braces).
    Text(String),
    /// A value, formatted as `spec` says.
    Value {
        expr: Handle<Expr>,
        spec: FormatSpec,
    },
}

/// The subset of Rust's format spec kernels support: `{:<W.P}`, `{:>W}`, `{:0W}`, `{:?}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FormatSpec {
    /// `<`.
    pub left: bool,
    /// `>`.
    pub right: bool,
    /// `0`: zero padding.
    pub zero: bool,
    /// The width, 0 for none.
    pub width: u32,
    /// The precision (digits after the point of a float).
    pub precision: Option<u32>,
}

/// One `{..}` of a format string, read: the argument (`None` for the next positional one,
/// a position, or a variable's name) and the spec; `Err` says what is not supported.
pub fn parse_placeholder(inner: &str) -> Result<(Placeholder, FormatSpec), String> {
    let (arg, spec) = match inner.split_once(':') {
        Some((a, s)) => (a, s),
        None => (inner, ""),
    };
    let arg = arg.trim();
    let arg = if arg.is_empty() {
        Placeholder::Next
    } else if let Ok(n) = arg.parse::<usize>() {
        Placeholder::Position(n)
    } else if arg.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !arg.starts_with(|c: char| c.is_ascii_digit())
    {
        Placeholder::Named(arg.to_string())
    } else {
        return Err(format!("`{{{inner}}}` names no argument"));
    };
    let mut s = spec;
    let mut out = FormatSpec::default();
    if let Some(rest) = s.strip_suffix('?') {
        s = rest;
    }
    if let Some(rest) = s.strip_prefix('<') {
        out.left = true;
        s = rest;
    } else if let Some(rest) = s.strip_prefix('>') {
        out.right = true;
        s = rest;
    }
    if let Some(rest) = s.strip_prefix('0') {
        out.zero = true;
        s = rest;
    }
    let (w, p) = match s.split_once('.') {
        Some((w, p)) => (w, Some(p)),
        None => (s, None),
    };
    let number = |t: &str| t.parse::<u32>().ok().filter(|n| *n <= 1000);
    if !w.is_empty() {
        out.width = number(w).ok_or_else(|| unsupported(spec))?;
    }
    if let Some(p) = p {
        out.precision = Some(number(p).ok_or_else(|| unsupported(spec))?);
    }
    Ok((arg, out))
}

fn unsupported(spec: &str) -> String {
    format!("the format spec `:{spec}` is not supported in kernels")
}

/// Which argument a placeholder formats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placeholder {
    /// `{}`: the next positional argument.
    Next,
    /// `{1}`.
    Position(usize),
    /// `{x}`: the variable `x`.
    Named(String),
}

/// The pieces of a format string: text, and placeholders with their byte offsets in it.
pub fn split_format(fmt: &str) -> Result<Vec<FormatPart>, String> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut chars = fmt.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' if chars.peek().map(|p| p.1) == Some('{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek().map(|p| p.1) == Some('}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next() {
                        Some((_, '}')) => break,
                        Some((_, ch)) => inner.push(ch),
                        None => return Err("a `{` in the format string is not closed".into()),
                    }
                }
                if !text.is_empty() {
                    parts.push(FormatPart::Text(std::mem::take(&mut text)));
                }
                let (arg, spec) = parse_placeholder(&inner)?;
                parts.push(FormatPart::Arg { arg, spec, at: i });
            }
            '}' => return Err("a `}` in the format string has no `{`; write `}}`".into()),
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        parts.push(FormatPart::Text(text));
    }
    Ok(parts)
}

/// A piece of a format string as written.
#[derive(Clone, Debug, PartialEq)]
pub enum FormatPart {
    Text(String),
    Arg {
        arg: Placeholder,
        spec: FormatSpec,
        at: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_strings_are_read_as_rust_reads_them() {
        let parts = split_format("x = {:>8.3}, {{i}} {i:05} {0:?}").unwrap();
        assert_eq!(parts.len(), 6, "{parts:?}");
        assert_eq!(parts[0], FormatPart::Text("x = ".into()));
        let FormatPart::Arg { arg, spec, .. } = &parts[1] else {
            panic!("{parts:?}")
        };
        assert_eq!(*arg, Placeholder::Next);
        assert!(spec.right && spec.width == 8 && spec.precision == Some(3));
        assert_eq!(parts[2], FormatPart::Text(", {i} ".into()));
        let FormatPart::Arg { arg, spec, .. } = &parts[3] else {
            panic!("{parts:?}")
        };
        assert_eq!(*arg, Placeholder::Named("i".into()));
        assert!(spec.zero && spec.width == 5);
        assert!(split_format("{:^5}").is_err());
        assert!(split_format("{:e}").is_err());
        assert!(split_format("{").is_err());
        assert!(split_format("}").is_err());
    }
}
