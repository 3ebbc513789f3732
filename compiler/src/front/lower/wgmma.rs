//! `wgmma_m64n{N}k16(&mut acc, &a_tile[ra], &b_tile[rb])` (and `wgmma_m64n{N}k8_tf32`,
//! `wgmma_m64n64k16_kn`): Hopper's asynchronous warpgroup multiply-accumulate from shared
//! memory, checked against the shape's accumulator length and the tiles' type. `A` may be a
//! thread's fragment instead (`&a`, a `[bf16; 8]`): the instruction's form with `A` in
//! registers. (Its
//! `wgmma_commit()` and `wgmma_wait(n)` are lowered with the copies' groups, `async_copy`.)

use super::cx::*;
use super::mma::{fragment_len, held_fragment};
use super::syntax::*;
use crate::ir::*;
use cuphase_contract::wgmma::{ATOM_CHUNKS, A_FRAG_LEN};

const FORM: &str =
    "`(&mut acc, &a_tile[ra], &b_tile[rb])` (or `&a`, a thread-local `[bf16; 8]`, for `A` in registers)";

impl Lowerer<'_> {
    /// A warpgroup multiply: the accumulator, then `A` (a tile's row, or a fragment in
    /// registers), then `B`'s row, then [`Stmt::Wgmma`].
    pub(super) fn lower_wgmma(&mut self, c: &syn::ExprCall, out: &mut Block, span: Span) {
        let function = call_name(c).unwrap_or_default();
        if c.args.len() != 3 {
            self.err(span, format!("`{function}` takes 3 arguments: {FORM}"));
            return;
        }
        let a_regs = self.is_fragment(&c.args[1]);
        let a = if a_regs {
            self.fragment_operand(&c.args[1], "a", false, &function)
                .map(|(array, row, place)| (array, Ok((row, place))))
        } else {
            self.wgmma_tile(&c.args[1], "a_tile", &function)
                .map(|(array, row)| (array, Err(row)))
        };
        let b = self.wgmma_tile(&c.args[2], "b_tile", &function);
        let (Some((a, a_expr)), Some((b, b_expr))) = (a, b) else {
            return;
        };
        let (ta, tb) = (self.arrays.get(a).clone(), self.arrays.get(b).clone());
        if ta.elem != tb.elem {
            self.err(
                c.args[2].src(),
                format!(
                    "`{function}` multiplies operands of one element type; `{}` holds `{}` and `{}` `{}`",
                    ta.name,
                    ta.elem.rust_name(),
                    tb.name,
                    tb.elem.rust_name()
                ),
            );
            return;
        }
        let Some(shape) = WgmmaShape::from_function(&function, ta.elem.rust_name()) else {
            self.err(
                c.func.src(),
                format!(
                    "`{function}` is not a warpgroup multiply of `{}` tiles: write `wgmma_m64n{{N}}k16` for `bf16` or `f16` tiles, `wgmma_m64n{{N}}k8_tf32` for `f32` ones (read as TF32), `N` a multiple of 8 from 8 to 256; `wgmma_m64n64k16_kn` takes `B` itself (16-bit, `N = 64`)",
                    ta.elem.rust_name()
                ),
            );
            return;
        };
        // The accumulator: `[f32; N / 2]`, or a row of a two-dimensional array of such rows.
        let Some((acc, acc_row, place)) = self.fragment_operand(&c.args[0], "acc", true, &function)
        else {
            return;
        };
        let arr = self.arrays.get(acc).clone();
        let ArrayKind::Local { dims, .. } = &arr.kind else {
            return;
        };
        let len = shape.acc_len() as u64;
        let fits = fragment_len(dims, acc_row.is_some()) == Some(len);
        if !fits || arr.elem != Scalar::F32 {
            let held = held_fragment(&arr.name, arr.elem, dims, acc_row.is_some());
            self.err(
                place.src(),
                format!(
                    "`acc` of `{function}` is a `[f32; {len}]` accumulator (64x{} over the warpgroup's 128 threads); this is {held}",
                    shape.n
                ),
            );
            return;
        }
        let Some(acc) = self.fragment_finish(acc, acc_row, place, true, &function, out) else {
            return;
        };
        let a = match a_expr {
            Ok((row, place)) => {
                let Some(f) = self.wgmma_fragment(a, row, place, shape, &function, out) else {
                    return;
                };
                WgmmaA::Registers(f)
            }
            Err(e) => {
                let Some(row) = self.tile_row(&ta, e, out) else {
                    return;
                };
                WgmmaA::Tile { array: a, row }
            }
        };
        let Some(b_row) = self.tile_row(&tb, b_expr, out) else {
            return;
        };
        out.push(
            Stmt::Wgmma {
                shape,
                acc,
                a,
                b,
                b_row,
            },
            span,
        );
    }

    /// Whether an operand names a thread-local array (`&a`, `&a[i]`): `A` given in registers.
    fn is_fragment(&self, e: &syn::Expr) -> bool {
        let syn::Expr::Reference(r) = strip_parens(e) else {
            return false;
        };
        let name = match strip_parens(&r.expr) {
            syn::Expr::Index(ix) => &*ix.expr,
            other => other,
        };
        self.local_array_named(name).is_some()
    }

    /// An `A` fragment in registers: a `[bf16; 8]` (or `[f16; 8]`), or a row of a
    /// two-dimensional array of them, for a 16-bit multiply.
    fn wgmma_fragment(
        &mut self,
        array: Handle<Array>,
        row: Option<&syn::Expr>,
        place: &syn::Expr,
        shape: WgmmaShape,
        function: &str,
        out: &mut Block,
    ) -> Option<Fragment> {
        let arr = self.arrays.get(array).clone();
        let ArrayKind::Local { dims, .. } = &arr.kind else {
            return None;
        };
        let len = A_FRAG_LEN as u64;
        let fits = fragment_len(dims, row.is_some()) == Some(len);
        if shape.input == WgmmaInput::Tf32 || !fits {
            let held = held_fragment(&arr.name, arr.elem, dims, row.is_some());
            let elem = shape.elem();
            let wanted = if shape.input == WgmmaInput::Tf32 {
                "only 16-bit inputs come from registers: `A` of a TF32 multiply is a tile"
                    .to_string()
            } else {
                format!("`a` in registers is a `[{elem}; {len}]` fragment (the warp's 16 rows of the 64x16 `A`, as `mma_m16n8k16`'s)")
            };
            self.err(
                place.src(),
                format!("`a` of `{function}`: {wanted}; this is {held}"),
            );
            return None;
        }
        self.fragment_finish(array, row, place, false, function, out)
    }

    /// A tile's row operand, lowered and checked against the tile's rows.
    fn tile_row(&mut self, tile: &Array, e: &syn::Expr, out: &mut Block) -> Option<Handle<Expr>> {
        let Value::Expr(r) = self.lower_value(e, out) else {
            return None;
        };
        let ArrayKind::Shared { dims, .. } = &tile.kind else {
            return None;
        };
        Some(self.checked_row(r, dims[0], &tile.name, e.src(), out))
    }

    /// A tile operand: `&tile[r]`, a row of a shared array of 16-byte rows that holds whole
    /// swizzle atoms. Gives the array and the row's expression (not lowered yet).
    fn wgmma_tile<'e>(
        &mut self,
        e: &'e syn::Expr,
        what: &str,
        function: &str,
    ) -> Option<(Handle<Array>, &'e syn::Expr)> {
        let tile_expr = match strip_parens(e) {
            syn::Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            other => {
                self.err(
                    other.src(),
                    format!("`{function}` reads `{what}` by shared reference: {FORM}"),
                );
                return None;
            }
        };
        let found = self.row_of(tile_expr).filter(|(a, _)| {
            matches!(
                self.arrays.get(*a).kind,
                ArrayKind::Shared { dynamic: false, .. }
            )
        });
        let Some((tile, row)) = found else {
            self.err(
                tile_expr.src(),
                format!("`{what}` of `{function}` is a row of a shared array of 16-byte rows (`&tile[r]`, where `tile` is `shared::<[[bf16; 8]; R]>()`){}", if what == "a_tile" { ", or `A` in registers: a thread-local `[bf16; 8]` (`&a`)" } else { "" }),
            );
            return None;
        };
        let t = self.arrays.get(tile).clone();
        let ArrayKind::Shared { dims, .. } = &t.kind else {
            return None;
        };
        let (rows, cols) = (dims[0], dims[1]);
        let chunk_ok = cols * t.elem.size_bytes() == cuphase_contract::wgmma::CHUNK_BYTES as u64
            && matches!(t.elem, Scalar::Bf16 | Scalar::F16 | Scalar::F32);
        if !chunk_ok || rows % ATOM_CHUNKS as u64 != 0 {
            self.err(
                tile_expr.src(),
                format!(
                    "`{what}` of `{function}` must be a shared `[[bf16; 8]; R]`, `[[f16; 8]; R]` or `[[f32; 4]; R]` with `R` a multiple of {ATOM_CHUNKS} (whole 1024-byte swizzle atoms); `{}` is a `[[{}; {cols}]; {rows}]`",
                    t.name,
                    t.elem.rust_name()
                ),
            );
            return None;
        }
        Some((tile, row))
    }
}
