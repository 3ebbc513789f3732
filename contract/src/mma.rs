//! Warp-level matrix multiply-accumulate (PTX's `mma.sync`): the shapes a kernel may call, and
//! the one description of which matrix element each lane's fragment holds.
//!
//! The compiler checks a call's fragments against [`MmaShape::a_len`] and the others, the CUDA
//! writer maps each shape to its PTX instruction, and the simulator gathers the warp's
//! fragments into whole matrices through [`MmaShape::a_at`], [`MmaShape::b_at`] and
//! [`MmaShape::c_at`], so the layouts the documentation promises are the ones both sides run.

/// A shape and input type of `mma.sync` with `f32` accumulators: `D = A * B + C`, `A` is
/// `M x K` (row-major fragments), `B` is `K x N` (column-major fragments), `C` and `D` are
/// `M x N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaShape {
    /// `mma_m16n8k16(&mut acc, &a, &b)` with `a: [bf16; 8]`, `b: [bf16; 4]`.
    M16N8K16Bf16,
    /// `mma_m16n8k16(&mut acc, &a, &b)` with `a: [f16; 8]`, `b: [f16; 4]`.
    M16N8K16F16,
    /// `mma_m16n8k8_tf32(&mut acc, &a, &b)` with `a: [f32; 4]`, `b: [f32; 2]`, each input
    /// rounded to TF32 (10 mantissa bits, to nearest, ties away from zero) first.
    M16N8K8Tf32,
}

impl MmaShape {
    /// Every shape, in a fixed order.
    pub const ALL: &'static [MmaShape] = &[
        MmaShape::M16N8K16Bf16,
        MmaShape::M16N8K16F16,
        MmaShape::M16N8K8Tf32,
    ];

    /// The Rust function that calls this shape.
    pub fn function(self) -> &'static str {
        match self {
            MmaShape::M16N8K16Bf16 | MmaShape::M16N8K16F16 => "mma_m16n8k16",
            MmaShape::M16N8K8Tf32 => "mma_m16n8k8_tf32",
        }
    }

    /// Whether `name` is the Rust function of some shape.
    pub fn is_function(name: &str) -> bool {
        MmaShape::ALL.iter().any(|s| s.function() == name)
    }

    /// The name of this enum's variant, for generated code that names it by path.
    pub fn variant(self) -> &'static str {
        match self {
            MmaShape::M16N8K16Bf16 => "M16N8K16Bf16",
            MmaShape::M16N8K16F16 => "M16N8K16F16",
            MmaShape::M16N8K8Tf32 => "M16N8K8Tf32",
        }
    }

    /// `(M, N, K)`.
    pub fn mnk(self) -> (usize, usize, usize) {
        match self {
            MmaShape::M16N8K16Bf16 | MmaShape::M16N8K16F16 => (16, 8, 16),
            MmaShape::M16N8K8Tf32 => (16, 8, 8),
        }
    }

    /// The Rust name of the input element type (`bf16`, `f16`, `f32`).
    pub fn input(self) -> &'static str {
        match self {
            MmaShape::M16N8K16Bf16 => "bf16",
            MmaShape::M16N8K16F16 => "f16",
            MmaShape::M16N8K8Tf32 => "f32",
        }
    }

    /// Elements of `A` each lane holds.
    pub fn a_len(self) -> usize {
        let (m, _, k) = self.mnk();
        m * k / 32
    }

    /// Elements of `B` each lane holds.
    pub fn b_len(self) -> usize {
        let (_, n, k) = self.mnk();
        k * n / 32
    }

    /// Elements of `C` (and `D`) each lane holds: 4 for every shape.
    pub fn c_len(self) -> usize {
        let (m, n, _) = self.mnk();
        m * n / 32
    }

    /// `(row, k)`: the element of `A` in element `i` of lane `lane`'s fragment.
    ///
    /// For m16n8k16 (`g = lane / 4`, `t = lane % 4`): `a[0], a[1]` are row `g`, columns
    /// `2t, 2t + 1`; `a[2], a[3]` row `g + 8`; `a[4]..a[7]` the same rows, columns `+ 8`.
    /// For m16n8k8: `a[0]` is `(g, t)`, `a[1]` `(g + 8, t)`, `a[2]` `(g, t + 4)`, `a[3]`
    /// `(g + 8, t + 4)`.
    pub fn a_at(self, lane: usize, i: usize) -> (usize, usize) {
        let (g, t) = (lane / 4, lane % 4);
        match self {
            MmaShape::M16N8K16Bf16 | MmaShape::M16N8K16F16 => {
                (g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2))
            }
            MmaShape::M16N8K8Tf32 => (g + 8 * (i & 1), t + 4 * (i >> 1)),
        }
    }

    /// `(k, col)`: the element of `B` in element `i` of lane `lane`'s fragment.
    ///
    /// For m16n8k16: `b[0], b[1]` are rows `2t, 2t + 1` of column `g`; `b[2], b[3]` rows
    /// `+ 8`. For m16n8k8: `b[0]` is `(t, g)`, `b[1]` `(t + 4, g)`.
    pub fn b_at(self, lane: usize, i: usize) -> (usize, usize) {
        let (g, t) = (lane / 4, lane % 4);
        match self {
            MmaShape::M16N8K16Bf16 | MmaShape::M16N8K16F16 => (2 * t + (i & 1) + 8 * (i >> 1), g),
            MmaShape::M16N8K8Tf32 => (t + 4 * i, g),
        }
    }

    /// `(row, col)`: the element of `C` and `D` in element `i` of lane `lane`'s fragment:
    /// `c[0], c[1]` are row `g`, columns `2t, 2t + 1`; `c[2], c[3]` row `g + 8`.
    pub fn c_at(self, lane: usize, i: usize) -> (usize, usize) {
        let (g, t) = (lane / 4, lane % 4);
        (g + 8 * (i >> 1), 2 * t + (i & 1))
    }

    /// `(lane, i)`: the lane and element holding `A[row][k]` (the inverse of [`Self::a_at`]).
    pub fn a_owner(self, row: usize, k: usize) -> (usize, usize) {
        owner(self.a_len(), |lane, i| self.a_at(lane, i) == (row, k))
    }

    /// `(lane, i)`: the lane and element holding `B[k][col]` (the inverse of [`Self::b_at`]).
    pub fn b_owner(self, k: usize, col: usize) -> (usize, usize) {
        owner(self.b_len(), |lane, i| self.b_at(lane, i) == (k, col))
    }
}

/// The first `(lane, i)` with `i < len` that `holds`; `(0, 0)` where none does (an element
/// outside the matrix).
fn owner(len: usize, holds: impl Fn(usize, usize) -> bool) -> (usize, usize) {
    (0..32)
        .flat_map(|lane| (0..len).map(move |i| (lane, i)))
        .find(|&(lane, i)| holds(lane, i))
        .unwrap_or((0, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of each matrix is held by exactly one (lane, element) pair.
    #[test]
    fn fragments_cover_each_matrix_once() {
        for &s in MmaShape::ALL {
            let (m, n, k) = s.mnk();
            type At = fn(MmaShape, usize, usize) -> (usize, usize);
            let mats: [(usize, usize, usize, At); 3] = [
                (m, k, s.a_len(), MmaShape::a_at),
                (k, n, s.b_len(), MmaShape::b_at),
                (m, n, s.c_len(), MmaShape::c_at),
            ];
            for (rows, cols, len, at) in mats {
                let mut seen = vec![0u32; rows * cols];
                for lane in 0..32 {
                    for i in 0..len {
                        let (r, c) = at(s, lane, i);
                        assert!(r < rows && c < cols, "{s:?} lane {lane} element {i}");
                        seen[r * cols + c] += 1;
                    }
                }
                assert!(seen.iter().all(|&x| x == 1), "{s:?}: {seen:?}");
            }
        }
    }

    /// What the simulator's shuffle form relies on: for each row half of `C` and each `k`,
    /// the element of `A` a lane needs sits at the same fragment index in its owner for every
    /// lane (and likewise for `B` and each column of `C`), so one shuffle per `(half, k)`
    /// moves them all.
    #[test]
    fn owners_send_one_element_index_per_step() {
        for &s in MmaShape::ALL {
            let (_, _, k) = s.mnk();
            for h in 0..2 {
                for kk in 0..k {
                    let js: Vec<usize> = (0..32)
                        .map(|lane| s.a_owner(s.c_at(lane, 2 * h).0, kk).1)
                        .collect();
                    assert!(js.iter().all(|&j| j == js[0]), "{s:?} A h {h} k {kk}");
                    let js: Vec<usize> = (0..32)
                        .map(|lane| s.b_owner(kk, s.c_at(lane, h).1).1)
                        .collect();
                    assert!(js.iter().all(|&j| j == js[0]), "{s:?} B w {h} k {kk}");
                }
            }
            for lane in 0..32 {
                for i in 0..s.a_len() {
                    let (r, c) = s.a_at(lane, i);
                    assert_eq!(s.a_owner(r, c), (lane, i));
                }
                for i in 0..s.b_len() {
                    let (r, c) = s.b_at(lane, i);
                    assert_eq!(s.b_owner(r, c), (lane, i));
                }
            }
        }
    }

    #[test]
    fn documented_positions() {
        let s = MmaShape::M16N8K16Bf16;
        // Lane 5: g = 1, t = 1.
        assert_eq!(s.a_at(5, 0), (1, 2));
        assert_eq!(s.a_at(5, 3), (9, 3));
        assert_eq!(s.a_at(5, 6), (9, 10));
        assert_eq!(s.b_at(5, 2), (10, 1));
        assert_eq!(s.c_at(5, 3), (9, 3));
        let t = MmaShape::M16N8K8Tf32;
        assert_eq!(t.a_at(5, 3), (9, 5));
        assert_eq!(t.b_at(5, 1), (5, 1));
        assert!(MmaShape::is_function("mma_m16n8k16"));
        assert!(!MmaShape::is_function("mma"));
    }
}
