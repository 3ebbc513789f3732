//! Where a kernel's shared arrays live in a block's shared memory: the one fact the CUDA
//! writer (declarations) and the host glue (the launch's shared bytes) both follow.
//!
//! CUDA gives a block at most 48 KiB of static shared memory (`__shared__` arrays of fixed
//! size) on every GPU; more must be dynamic shared memory, one allocation a launch sizes, which
//! a kernel opts into beyond 48 KiB. So when a kernel's fixed-size shared arrays take more than
//! 48 KiB together, they are laid out at fixed offsets at the start of its dynamic shared
//! memory instead of declared `__shared__` ("carved"), and every launch adds their bytes to its
//! own. The kernel's array sized at launch (`shared_slice`, or `shared::<[T; N]>()` with a const
//! parameter `N`) follows them. A kernel within 48 KiB keeps its `__shared__` arrays.

use super::Kernel;

/// The most static shared memory (`__shared__` arrays of fixed size) a block may declare on
/// every CUDA GPU: 48 KiB. Beyond it a kernel's fixed-size arrays are carved from dynamic
/// shared memory (see the module).
pub const STATIC_SHARED_LIMIT: u64 = 48 * 1024;

/// The most shared memory a block may have on any CUDA GPU, with the opt-in: 227 KiB (sm_90
/// and sm_100; sm_80 allows 163 KiB, sm_86 and sm_89 99 KiB, which a launch checks).
pub const SHARED_LIMIT: u64 = 227 * 1024;

/// The alignment of each carved array (and of the array sized at launch after them): enough
/// for any element and for 16-byte asynchronous copies and fragment loads.
pub const CARVED_ALIGN: u64 = 128;

/// The alignment of a shared array a warpgroup multiply reads (see
/// [`Kernel::swizzled_arrays`]): the hardware's 128-byte swizzle works on 1024-byte atoms that
/// start at multiples of 1024.
pub const SWIZZLE_ALIGN: u64 = 1024;

/// Where a kernel's shared arrays live ([`Kernel::shared_layout`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedLayout {
    /// The fixed-size shared arrays take more than 48 KiB (`STATIC_SHARED_LIMIT`) together, so
    /// they are carved from dynamic shared memory.
    pub carved: bool,
    /// By array index: the byte offset of a carved array in dynamic shared memory; `None` for
    /// other arrays (and for every array when nothing is carved).
    pub offsets: Vec<Option<u64>>,
    /// The bytes of the fixed-size shared arrays, together (saturating): `__shared__` bytes
    /// when nothing is carved; when carved, the aligned bytes at the start of dynamic shared
    /// memory, where the array sized at launch begins.
    pub fixed_bytes: u64,
}

impl SharedLayout {
    /// The bytes of `__shared__` arrays: what the kernel declares statically.
    pub fn static_bytes(&self) -> u64 {
        if self.carved {
            0
        } else {
            self.fixed_bytes
        }
    }

    /// The bytes of dynamic shared memory the kernel's fixed-size arrays take before the
    /// launch's own: every launch adds them.
    pub fn dynamic_base(&self) -> u64 {
        if self.carved {
            self.fixed_bytes
        } else {
            0
        }
    }
}

impl Kernel {
    /// Where the kernel's shared arrays live (see the module).
    pub fn shared_layout(&self) -> SharedLayout {
        let mut plain = 0u64;
        let mut carved_end = 0u64;
        let mut offsets = Vec::with_capacity(self.arrays.len());
        let swizzled = self.swizzled_arrays();
        for (h, a) in self.arrays.iter() {
            match a.static_shared_bytes() {
                Some(bytes) => {
                    if swizzled[h.index()] {
                        carved_end = carved_end
                            .div_ceil(SWIZZLE_ALIGN)
                            .saturating_mul(SWIZZLE_ALIGN);
                    }
                    plain = plain.saturating_add(bytes);
                    offsets.push(Some(carved_end));
                    carved_end = align_up(carved_end.saturating_add(bytes));
                }
                None => offsets.push(None),
            }
        }
        let carved = plain > STATIC_SHARED_LIMIT;
        if !carved {
            offsets.iter_mut().for_each(|o| *o = None);
        }
        SharedLayout {
            carved,
            offsets,
            fixed_bytes: if carved { carved_end } else { plain },
        }
    }

    /// By array index: whether the array is a tile of a warpgroup multiply (`wgmma_*`). The
    /// writers lay such an array out in the hardware's 128-byte swizzle (chunk `c` at
    /// [`cuphase_contract::wgmma::swizzle`]`(c)`), which every access follows, and align it to
    /// [`SWIZZLE_ALIGN`]; the analyses and the simulator see the chunks in order.
    pub fn swizzled_arrays(&self) -> Vec<bool> {
        let mut out = vec![false; self.arrays.len()];
        super::visit::for_each_stmt(&self.body, false, &mut |s, _| {
            if let super::Stmt::Wgmma { a, b, .. } = s {
                if let Some(a) = a.tile() {
                    out[a.index()] = true;
                }
                out[b.index()] = true;
            }
        });
        out
    }

    /// Whether the kernel multiplies by warpgroups (`wgmma_*`): its CUDA C needs the
    /// architecture-specific target (`sm_90a`).
    pub fn uses_wgmma(&self) -> bool {
        super::visit::any_stmt(&self.body, |s| matches!(s, super::Stmt::Wgmma { .. }))
    }

    /// Whether the kernel has a shared array sized at launch (`shared_slice`, or a shared
    /// array whose length is a const parameter).
    pub fn has_dynamic_shared(&self) -> bool {
        self.arrays.iter().any(|(_, a)| a.kind.is_dynamic())
    }
}

/// `n` rounded up to [`CARVED_ALIGN`] (saturating).
fn align_up(n: u64) -> u64 {
    n.div_ceil(CARVED_ALIGN).saturating_mul(CARVED_ALIGN)
}
