//! Warp-collective loads of matrix fragments from shared memory (PTX's `ldmatrix`): which
//! lane's 16-byte row, and which element of it, lands in each element of each lane's fragment.
//!
//! `ldmatrix(&mut frag, &tile[r])` loads one, two or four 8x8 matrices of 16-bit elements (or
//! 8x4 of 32-bit ones): lane `8 j + i` gives the address of row `i` of matrix `j`, and every
//! lane receives, of each matrix, the 4 bytes at row `lane / 4`, word `lane % 4`, which are the
//! fragment layouts of `mma` (the `A` and `C` fragments row by row, the `B` fragment of a
//! row-major tile with [`MatrixLoad::trans`]). The simulator gathers the warp's rows and hands
//! each lane its elements by [`MatrixLoad::source`]; the CUDA writer emits the instruction.

/// One `ldmatrix`: how many matrices, of which element size, transposed or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatrixLoad {
    /// Bytes of one element: 2 (`bf16`, `f16`) or 4 (`f32`, which moves TF32 fragments).
    pub elem_bytes: usize,
    /// Elements of each lane's fragment: 2 per matrix for 16-bit elements, 1 for 32-bit ones.
    pub frag_len: usize,
    /// `ldmatrix_trans`: each lane receives a column pair of the rows instead (16-bit only).
    pub trans: bool,
}

/// Bytes of the row each lane addresses.
pub const ROW_BYTES: usize = 16;

impl MatrixLoad {
    /// The Rust function that calls this load.
    pub fn function(trans: bool) -> &'static str {
        if trans {
            "ldmatrix_trans"
        } else {
            "ldmatrix"
        }
    }

    /// A load of `frag_len` elements of `elem_bytes` each, if `ldmatrix` has that form: one,
    /// two or four matrices, and a transposed one of 16-bit elements only.
    pub fn new(elem_bytes: usize, frag_len: usize, trans: bool) -> Option<MatrixLoad> {
        let per = match elem_bytes {
            2 => 2,
            4 if !trans => 1,
            _ => return None,
        };
        if !frag_len.is_multiple_of(per) || !matches!(frag_len / per, 1 | 2 | 4) {
            return None;
        }
        Some(MatrixLoad {
            elem_bytes,
            frag_len,
            trans,
        })
    }

    /// Elements of a row: 8 of 16 bits, 4 of 32.
    pub fn row_len(self) -> usize {
        ROW_BYTES / self.elem_bytes
    }

    /// Elements each lane receives of one matrix.
    fn per_matrix(self) -> usize {
        4 / self.elem_bytes
    }

    /// How many matrices: 1, 2 or 4 (PTX's `.x1`, `.x2`, `.x4`).
    pub fn matrices(self) -> usize {
        self.frag_len / self.per_matrix()
    }

    /// The lanes whose addresses the instruction reads: `8 * matrices()` (the hardware ignores
    /// the others' addresses; cuphase still checks them against the tile's bounds).
    pub fn addressing_lanes(self) -> usize {
        8 * self.matrices()
    }

    /// `(from_lane, element)`: element `i` of lane `lane`'s fragment is element `element` of
    /// the row lane `from_lane` addressed.
    ///
    /// Untransposed, with `p` elements per matrix (2 or 1): `frag[p j + h]` is row `lane / 4`
    /// of matrix `j`, element `p (lane % 4) + h`. Transposed: `frag[2 j + h]` is row
    /// `2 (lane % 4) + h` of matrix `j`, element `lane / 4`.
    pub fn source(self, lane: usize, i: usize) -> (usize, usize) {
        let p = self.per_matrix();
        let (j, h) = (i / p, i % p);
        if self.trans {
            (8 * j + 2 * (lane % 4) + h, lane / 4)
        } else {
            (8 * j + lane / 4, p * (lane % 4) + h)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MmaShape;

    /// Every element of every addressed row reaches exactly one lane.
    #[test]
    fn each_row_element_lands_once() {
        for (bytes, trans) in [(2, false), (2, true), (4, false)] {
            for len in [1, 2, 4, 8] {
                let Some(l) = MatrixLoad::new(bytes, len, trans) else {
                    continue;
                };
                let mut seen = vec![0u32; l.addressing_lanes() * l.row_len()];
                for lane in 0..32 {
                    for i in 0..len {
                        let (from, e) = l.source(lane, i);
                        assert!(from < l.addressing_lanes() && e < l.row_len(), "{l:?}");
                        seen[from * l.row_len() + e] += 1;
                    }
                }
                assert!(seen.iter().all(|&n| n == 1), "{l:?}: {seen:?}");
            }
        }
    }

    #[test]
    fn forms() {
        assert_eq!(MatrixLoad::new(2, 8, false).map(|l| l.matrices()), Some(4));
        assert_eq!(MatrixLoad::new(2, 4, true).map(|l| l.matrices()), Some(2));
        assert_eq!(MatrixLoad::new(4, 4, false).map(|l| l.matrices()), Some(4));
        assert_eq!(MatrixLoad::new(4, 2, true), None);
        assert_eq!(MatrixLoad::new(2, 6, false), None);
        assert_eq!(MatrixLoad::new(2, 3, false), None);
        assert_eq!(MatrixLoad::new(8, 2, false), None);
    }

    /// What makes the load useful: with lane `l` addressing row `l % 16`, 8-element chunk
    /// `l / 16` of a row-major 16x16 tile, the untransposed x4 load gives each lane its
    /// m16n8k16 `A` fragment; with lane `l` addressing row `l % 16` (`k`) of a row-major 16x8
    /// tile, the transposed x2 load gives the `B` fragment; the same addressing of a row-major
    /// 16x8 `f32` tile, 4 elements a row, gives the TF32 `A` fragment.
    #[test]
    fn loads_give_mma_fragments() {
        let a = MatrixLoad::new(2, 8, false).unwrap();
        let s = MmaShape::M16N8K16Bf16;
        for lane in 0..32 {
            for i in 0..8 {
                let (from, e) = a.source(lane, i);
                assert_eq!((from % 16, 8 * (from / 16) + e), s.a_at(lane, i));
            }
        }
        let b = MatrixLoad::new(2, 4, true).unwrap();
        for lane in 0..32 {
            for i in 0..4 {
                let (from, e) = b.source(lane, i);
                assert_eq!((from % 16, e), s.b_at(lane, i));
            }
        }
        let t = MatrixLoad::new(4, 4, false).unwrap();
        let s = MmaShape::M16N8K8Tf32;
        for lane in 0..32 {
            for i in 0..4 {
                let (from, e) = t.source(lane, i);
                assert_eq!((from % 16, 4 * (from / 16) + e), s.a_at(lane, i));
            }
        }
    }
}
