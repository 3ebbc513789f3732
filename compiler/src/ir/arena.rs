//! Arenas of IR nodes, the handles that refer to them, and the source spans kept beside them.

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
