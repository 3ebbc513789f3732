//! `cp_async(&mut tile[i], &src[j])` as one `cp.async` of the element's bytes: the
//! destination's and the source's bounds checks as guards (destination first, as Rust
//! evaluates the arguments), then the two addresses.

use super::writer::Writer;
use crate::ir::*;

impl Writer<'_> {
    /// Writes one asynchronous copy (see [`Stmt::AsyncCopy`]).
    pub(super) fn async_copy(
        &mut self,
        dst: Handle<Array>,
        dst_index: &[Handle<Expr>],
        src: &[Handle<Expr>],
        span: Span,
    ) {
        let k = self.k;
        let Some(Expr::Load {
            array: from,
            index: from_index,
        }) = src.first().map(|e| k.exprs.get(*e))
        else {
            return;
        };
        let (from, from_index) = (*from, from_index.clone());
        self.guard_element(dst, dst_index, span);
        self.guard_element(from, &from_index, k.exprs.span(src[0]));
        let elem = k.arrays.get(dst).elem;
        let bytes = src.len() as u64 * elem.size_bytes();
        // A row is the record the array is declared with, or a C array of its lanes; a
        // scalar element is itself.
        let to = self.element(dst, dst_index).text;
        // The source's first lane, less its field path: the element.
        let whole = self.element(from, &from_index).text;
        let suffix = &self.field_suffixes[from.index()];
        let from_text = whole
            .strip_suffix(suffix.as_str())
            .unwrap_or(&whole)
            .to_string();
        // A warpgroup multiply's tile is read from shared memory only: its copies skip L1
        // (`.cg`, 16 bytes), which measured 9-20% faster for `gemm_bf16_wgmma` on an H100
        // (benches/wgmma_gemm.py); other kernels keep `.ca`, faster for theirs.
        if self.swizzled[dst.index()] && bytes == 16 {
            self.line(&format!("cuphase::cp_async_cg(&{to}, &{from_text});"));
            return;
        }
        self.line(&format!("cuphase::cp_async<{bytes}>(&{to}, &{from_text});"));
    }
}
