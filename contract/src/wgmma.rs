//! Warpgroup matrix multiply-accumulate (Hopper's `wgmma.mma_async`): the shapes, how their
//! operands sit in shared memory, and how the accumulator is spread over the warpgroup.
//!
//! A warpgroup is four consecutive warps of a block (128 threads, the first warp's index a
//! multiple of four). `wgmma_m64n{N}k16(&mut acc, &a_tile[ra], &b_tile[rb])` multiplies a
//! 64x16 tile of `A` by the transpose of an Nx16 tile of `B` (so `D[m][n] += sum_k A[m][k] *
//! B[n][k]`, both operands "K-major") and adds the product to the warpgroup's 64xN `f32`
//! accumulator, `N / 2` values a thread. Both operands are read from shared arrays of 16-byte
//! rows (`shared::<[[bf16; 8]; R]>()`), which this module calls chunks: the matrices are
//! stored 64 elements (128 bytes, 8 chunks) a row, so row `m` of the `A` tile is chunks
//! `ra + 8 m` and `ra + 8 m + 1` (its 16 `k` values) and row `n` of the `B` tile chunks
//! `rb + 8 n` and `rb + 8 n + 1`. An operand's first chunk must be the first, third, fifth or
//! seventh of a group of 64 (`ra % 64` is 0, 2, 4 or 6: the tile starts on a row that is a
//! multiple of 8, at `k` 0, 16, 32 or 48 of it); the writers lay such arrays out in the
//! 128-byte swizzle the hardware reads ([`swizzle`]).
//!
//! `A` may also come from registers (16-bit inputs): `&a` a thread's `[bf16; 8]` (or `[f16;
//! 8]`), its warp's 16 rows of the 64x16 tile spread as `mma.sync`'s `A` fragment
//! ([`WgmmaShape::a_frag_at`]). That layout is the accumulator's: values `8 s` to `8 s + 7` of
//! an accumulator are, once rounded to 16 bits, the `A` fragment of its columns `16 s` to `16 s
//! + 15` (so `p = softmax(s)` can multiply `v` without leaving the registers).
//!
//! `wgmma_m64n64k16_kn` takes `B` itself instead (`D[m][n] += sum_k A[m][k] * B[k][n]`, `B`
//! "MN-major"), 16-bit inputs and `N = 64` only: row `k` of the 16x64 `B` tile, its 64 values,
//! is the 8 chunks from `rb + 8 k`, and `rb % 64` must be 0.

/// The element types a warpgroup multiply takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WgmmaInput {
    /// `bf16`, 16 of `k` an instruction.
    Bf16,
    /// `f16`, 16 of `k` an instruction.
    F16,
    /// `f32` rounded to TF32, 8 of `k` an instruction.
    Tf32,
}

/// One warpgroup multiply-accumulate shape: `m64nNk16` (16-bit inputs) or `m64nNk8` (TF32),
/// `f32` accumulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgmmaShape {
    /// The columns of the accumulator: a multiple of 8 from 8 to 256.
    pub n: u16,
    /// The inputs.
    pub input: WgmmaInput,
    /// `B` is given as `k x n` (its rows of `N = 64` values), not as its transpose.
    pub b_kn: bool,
}

/// Rows of the accumulator (and of the `A` tile).
pub const M: usize = 64;

/// Threads of a warpgroup.
pub const THREADS: usize = 128;

/// Elements of a thread's `A` fragment (an `A` given in registers, 16-bit inputs).
pub const A_FRAG_LEN: usize = 8;

/// Bytes of a chunk (a row of an operand's shared array).
pub const CHUNK_BYTES: usize = 16;

/// Chunks of a matrix row in an operand's shared array (128 bytes).
pub const ROW_CHUNKS: usize = 8;

/// Chunks of one swizzle atom (8 rows of 128 bytes): an operand's arrays hold whole atoms and
/// start at a multiple of 1024 bytes.
pub const ATOM_CHUNKS: usize = 64;

impl WgmmaShape {
    /// The shape a Rust function name calls (`wgmma_m64n128k16`, `wgmma_m64n64k8_tf32`), with
    /// the element type of its tiles (`bf16`, `f16` or `f32`) choosing the input for `k16`.
    pub fn from_function(name: &str, elem: &str) -> Option<WgmmaShape> {
        if let Some(plain) = name.strip_suffix("_kn") {
            let s = WgmmaShape::from_function(plain, elem)?;
            return (s.n == 64 && s.input != WgmmaInput::Tf32 && !s.b_kn)
                .then_some(WgmmaShape { b_kn: true, ..s });
        }
        let rest = name.strip_prefix("wgmma_m64n")?;
        let (n, input) = if let Some(n) = rest.strip_suffix("k16") {
            let input = match elem {
                "bf16" => WgmmaInput::Bf16,
                "f16" => WgmmaInput::F16,
                _ => return None,
            };
            (n, input)
        } else if elem == "f32" {
            (rest.strip_suffix("k8_tf32")?, WgmmaInput::Tf32)
        } else {
            return None;
        };
        if n.starts_with('0') {
            return None;
        }
        let n: u16 = n.parse().ok()?;
        (n.is_multiple_of(8) && (8..=256).contains(&n)).then_some(WgmmaShape {
            n,
            input,
            b_kn: false,
        })
    }

    /// Whether `name` calls a warpgroup multiply (`wgmma_m64n..`), well formed or not (a
    /// malformed one is an error that says so, not an unknown function).
    pub fn is_function(name: &str) -> bool {
        name.starts_with("wgmma_m64n")
    }

    /// The Rust function.
    pub fn function(self) -> String {
        match (self.input, self.b_kn) {
            (WgmmaInput::Tf32, _) => format!("wgmma_m64n{}k8_tf32", self.n),
            (_, false) => format!("wgmma_m64n{}k16", self.n),
            (_, true) => format!("wgmma_m64n{}k16_kn", self.n),
        }
    }

    /// `k` of one instruction.
    pub fn k(self) -> usize {
        match self.input {
            WgmmaInput::Tf32 => 8,
            _ => 16,
        }
    }

    /// The Rust element type of the operands' tiles.
    pub fn elem(self) -> &'static str {
        match self.input {
            WgmmaInput::Bf16 => "bf16",
            WgmmaInput::F16 => "f16",
            WgmmaInput::Tf32 => "f32",
        }
    }

    /// The PTX type of the inputs.
    pub fn ptx_input(self) -> &'static str {
        match self.input {
            WgmmaInput::Bf16 => "bf16",
            WgmmaInput::F16 => "f16",
            WgmmaInput::Tf32 => "tf32",
        }
    }

    /// Elements of a chunk.
    pub fn chunk_len(self) -> usize {
        match self.input {
            WgmmaInput::Tf32 => 4,
            _ => 8,
        }
    }

    /// The accumulator values of one thread: `N / 2`.
    pub fn acc_len(self) -> usize {
        usize::from(self.n) / 2
    }

    /// Where accumulator value `i` of thread `t` of the warpgroup (0 to 127) is: `(row,
    /// column)` of the 64xN tile. Warp `w` of the group holds rows `16 w` to `16 w + 15`; in
    /// each 8 columns, a lane holds two neighbours in two rows 8 apart, as `mma.sync`'s `C`.
    pub fn c_at(self, t: usize, i: usize) -> (usize, usize) {
        let (w, lane) = (t / 32, t % 32);
        let (j, q) = (i / 4, i % 4);
        (
            16 * w + lane / 4 + 8 * (q / 2),
            8 * j + 2 * (lane % 4) + q % 2,
        )
    }

    /// Where element `i` (below [`A_FRAG_LEN`]) of thread `t`'s `A` fragment (an `A` given in
    /// registers) is: `(row, k)` of the 64x16 tile. Warp `w` of the group holds rows `16 w` to
    /// `16 w + 15` as `mma.sync`'s m16n8k16 `A`: elements `2 q` and `2 q + 1` are neighbours in
    /// `k`, `q` odd 8 rows lower, `q` of 2 or 3 at `k + 8`. Element `i` is where accumulator
    /// value `8 s + i` is ([`Self::c_at`]), `16 s` columns to the left.
    pub fn a_frag_at(t: usize, i: usize) -> (usize, usize) {
        let (w, lane) = (t / 32, t % 32);
        (
            16 * w + lane / 4 + 8 * ((i >> 1) & 1),
            2 * (lane % 4) + (i & 1) + 8 * (i >> 2),
        )
    }

    /// `(lane, i)`: the lane of a warp and the element of its `A` fragment that hold row `r`
    /// (below 16: of the warp's rows) and column `kk` of the 64x16 `A` (the inverse of
    /// [`Self::a_frag_at`] within a warp).
    pub fn a_frag_owner(r: usize, kk: usize) -> (usize, usize) {
        (
            4 * (r % 8) + (kk % 8) / 2,
            (kk & 1) + 2 * (r / 8) + 4 * (kk / 8),
        )
    }

    /// Where element `kk` (below [`Self::k`]) of row `r` of a tile whose first chunk is
    /// `first` is: `(chunk, element of the chunk)`.
    pub fn at(self, first: usize, r: usize, kk: usize) -> (usize, usize) {
        let per = self.chunk_len();
        (first + ROW_CHUNKS * r + kk / per, kk % per)
    }

    /// Where element `(kk, n)` of a `B` tile given `k x n` ([`Self::b_kn`]) whose first chunk
    /// is `first` is: `(chunk, element of the chunk)`.
    pub fn at_kn(self, first: usize, kk: usize, n: usize) -> (usize, usize) {
        (first + ROW_CHUNKS * kk + n / 8, n % 8)
    }

    /// The chunks of the `B` tile an instruction reads, as `(rows, chunks of each)`: rows
    /// `first + 8 r` for `r` below the first, and that many chunks from each.
    pub fn b_region(self) -> (usize, usize) {
        if self.b_kn {
            (self.k(), ROW_CHUNKS)
        } else {
            (usize::from(self.n), Self::ROW_READ)
        }
    }

    /// Chunks of a tile row an instruction reads (two: 32 bytes of `k`).
    pub const ROW_READ: usize = 2;

    /// Whether an operand may start at chunk `first` (see the module).
    pub fn aligned(first: usize) -> bool {
        first % ATOM_CHUNKS < ROW_CHUNKS && first.is_multiple_of(2)
    }

    /// Whether a `B` tile given `k x n` may start at chunk `first`: on a swizzle atom.
    pub fn aligned_kn(first: usize) -> bool {
        first.is_multiple_of(ATOM_CHUNKS)
    }
}

/// The line the CUDA writer puts in the CUDA C of a kernel that multiplies by warpgroups: the
/// runtime compiles such source for the architecture-specific target (`sm_90a`), the only one
/// whose PTX has `wgmma`, and only for a device of [`ARCH`].
pub const ARCH_SPECIFIC: &str = "// cuphase: architecture-specific (sm_90a): wgmma";

/// The architecture whose `a` target has `wgmma` (sm_90, Hopper).
pub const ARCH: u32 = 90;

/// The fault of a tile that does not start where [`WgmmaShape::aligned`] (or, for a `B` tile
/// given `k x n`, [`WgmmaShape::aligned_kn`]) allows.
pub const MISALIGNED: &str = "`wgmma`: a tile must start at a chunk whose remainder by 64 is 0, 2, 4 or 6 (a row that is a multiple of 8, at `k` 0, 16, 32 or 48; 0 for a `B` tile given `k x n`)";

/// Where chunk `c` of an operand's shared array lives: the hardware's 128-byte swizzle, which
/// exchanges the 16-byte chunks of each 128-byte row by the row's place in its group of 8 (so a
/// column of 8 rows touches every bank group once). A permutation of each 8 chunks.
pub const fn swizzle(c: usize) -> usize {
    c ^ ((c >> 3) & 7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_to_their_shapes_and_back() {
        let s = WgmmaShape::from_function("wgmma_m64n128k16", "bf16").unwrap();
        assert_eq!(
            (s.n, s.input, s.acc_len(), s.k()),
            (128, WgmmaInput::Bf16, 64, 16)
        );
        assert_eq!(s.function(), "wgmma_m64n128k16");
        let t = WgmmaShape::from_function("wgmma_m64n64k8_tf32", "f32").unwrap();
        assert_eq!(
            (t.n, t.input, t.k(), t.chunk_len()),
            (64, WgmmaInput::Tf32, 8, 4)
        );
        for bad in [
            "wgmma_m64n12k16",
            "wgmma_m64n264k16",
            "wgmma_m64n0k16",
            "wgmma_m64n064k16",
        ] {
            assert!(WgmmaShape::from_function(bad, "bf16").is_none(), "{bad}");
        }
        assert!(WgmmaShape::from_function("wgmma_m64n64k16", "f32").is_none());
        assert!(WgmmaShape::from_function("wgmma_m64n64k8_tf32", "bf16").is_none());
        assert!(WgmmaShape::is_function("wgmma_m64n256k16"));
        let kn = WgmmaShape::from_function("wgmma_m64n64k16_kn", "f16").unwrap();
        assert!(kn.b_kn && kn.function() == "wgmma_m64n64k16_kn" && kn.b_region() == (16, 8));
        for bad in [
            "wgmma_m64n128k16_kn",
            "wgmma_m64n64k8_tf32_kn",
            "wgmma_m64n64k16_kn_kn",
        ] {
            assert!(WgmmaShape::from_function(bad, "bf16").is_none(), "{bad}");
            assert!(WgmmaShape::from_function(bad, "f32").is_none(), "{bad}");
        }
    }

    #[test]
    fn the_accumulator_covers_the_tile_once() {
        let s = WgmmaShape {
            n: 256,
            input: WgmmaInput::Bf16,
            b_kn: false,
        };
        let mut seen = vec![false; M * 256];
        for t in 0..THREADS {
            for i in 0..s.acc_len() {
                let (r, c) = s.c_at(t, i);
                assert!(!std::mem::replace(&mut seen[r * 256 + c], true));
            }
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn an_a_fragment_is_where_the_accumulator_is() {
        let s = WgmmaShape {
            n: 64,
            input: WgmmaInput::Bf16,
            b_kn: false,
        };
        let mut seen = vec![false; M * 16];
        for t in 0..THREADS {
            for i in 0..A_FRAG_LEN {
                let (r, k) = WgmmaShape::a_frag_at(t, i);
                assert!(!std::mem::replace(&mut seen[r * 16 + k], true));
                for slice in 0..4 {
                    assert_eq!(s.c_at(t, 8 * slice + i), (r, 16 * slice + k));
                }
                assert_eq!(WgmmaShape::a_frag_owner(r % 16, k), (t % 32, i));
                // As `mma.sync`'s `A`, in the warp's 16 rows.
                let mma = crate::MmaShape::M16N8K16Bf16.a_at(t % 32, i);
                assert_eq!((16 * (t / 32) + mma.0, mma.1), (r, k));
            }
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn the_swizzle_permutes_each_row_of_chunks() {
        for row in 0..64 {
            let mut got: Vec<usize> = (0..8).map(|c| swizzle(row * 8 + c)).collect();
            got.sort_unstable();
            assert_eq!(got, (row * 8..row * 8 + 8).collect::<Vec<_>>());
        }
        assert!(WgmmaShape::aligned(128 + 6) && !WgmmaShape::aligned(8) && !WgmmaShape::aligned(3));
    }
}
