//! Launch geometry: a [`Launch`] is the grid, the block and the dynamic shared memory of one
//! kernel launch.
//!
//! Takes [`Dim3`] and a kernel's [`KernelInfo`] (its name and the block rank its shared-memory
//! proof assumed). Gives the builder ([`Launch::new`], [`Launch::cover`],
//! [`Launch::shared_bytes`]) and the device-independent checks ([`Launch::validate`],
//! [`Launch::validate_for`]) that both back ends run before anything executes. Guarantees: a
//! launch that passes `validate_for` fits every CUDA GPU's fixed limits and the kernel's proof;
//! each device's own limits are checked by its back end.

use crate::error::Error;
use crate::kernel::KernelInfo;

pub use crate::dim3::Dim3;

/// Most threads in one block, on every CUDA GPU since compute capability 2.0.
pub const MAX_THREADS_PER_BLOCK: u64 = 1024;
/// Static shared memory every CUDA GPU offers a block without opting in.
pub const DEFAULT_SHARED_BYTES: u32 = 48 * 1024;

/// The grid and block of a launch, and its dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads in a block.
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// `cover` asked for more blocks than a grid can have.
    oversized: bool,
    /// Each `print!`/`println!` call's text starts with its block and thread.
    print_ids: bool,
}

impl Launch {
    /// A launch of `grid` blocks of `block` threads: `u32`, `(u32, u32)` or `(u32, u32, u32)`.
    /// Sizes are checked when the kernel is launched.
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Self {
        Launch {
            grid: grid.into(),
            block: block.into(),
            shared_bytes: 0,
            oversized: false,
            print_ids: false,
        }
    }

    /// A one-dimensional launch with at least `n` threads in blocks of `block`:
    /// `ceil(n / block)` blocks.
    pub fn cover(n: usize, block: u32) -> Self {
        let blocks = if block == 0 {
            0
        } else {
            (n as u64).div_ceil(u64::from(block))
        };
        let grid = u32::try_from(blocks).unwrap_or(u32::MAX);
        Launch {
            grid: Dim3::new(grid, 1, 1),
            block: Dim3::new(block, 1, 1),
            shared_bytes: 0,
            oversized: blocks > u64::from(u32::MAX),
            print_ids: false,
        }
    }

    /// Sets the dynamic shared memory per block.
    pub fn shared_bytes(mut self, bytes: u32) -> Self {
        self.shared_bytes = bytes;
        self
    }

    /// Starts the text of each `print!`/`println!` call of the kernel with the block and the
    /// thread that made it, `[block (1, 0, 0) thread (31, 0, 0)] `, on the GPU and the
    /// simulator alike.
    pub fn print_ids(mut self, on: bool) -> Self {
        self.print_ids = on;
        self
    }

    /// Whether [`Launch::print_ids`] is on.
    pub fn prints_ids(&self) -> bool {
        self.print_ids
    }

    /// Total threads of the launch.
    pub fn threads(&self) -> u64 {
        self.grid.volume() * self.block.volume()
    }

    /// Checks the launch for a kernel: the limits every CUDA GPU has, and the block shape the
    /// kernel's compile-time shared-memory proof assumed.
    pub fn validate_for(&self, info: &KernelInfo) -> Result<(), Error> {
        self.validate(info.name)?;
        let b = self.block;
        if info.whole_warps && !b.x.is_multiple_of(32) {
            return Err(Error::InvalidLaunch {
                kernel: info.name.to_string(),
                reason: format!(
                    "the block {b} does not fit the kernel: its warp operations need whole warps (they were proven warp-uniform, or multiply matrices, for blocks whose x extent is a multiple of 32)"
                ),
            });
        }
        if let Some([x, y, z]) = info.block_shape {
            if (b.x, b.y, b.z) != (x, y, z) {
                return Err(Error::InvalidLaunch {
                    kernel: info.name.to_string(),
                    reason: format!(
                        "the kernel is written for blocks of ({x}, {y}, {z}) threads (`#[kernel(block = ..)]`, which its analyses assumed), but this launch has {b}"
                    ),
                });
            }
        }
        let wrong = match info.block_rank {
            1 if b.y != 1 || b.z != 1 => {
                Some("indexes threads along x only, so its blocks must be one-dimensional")
            }
            2 if b.z != 1 => {
                Some("indexes threads along x and y only, so its blocks must have z = 1")
            }
            _ => None,
        };
        match wrong {
            Some(why) => Err(Error::InvalidLaunch {
                kernel: info.name.to_string(),
                reason: format!(
                    "the block {b} does not fit the kernel: it {why} (its shared-memory accesses were proven race-free for that shape)"
                ),
            }),
            None => Ok(()),
        }
    }

    /// Checks the launch against the limits every CUDA GPU has; `kernel` names the kernel in
    /// the error.
    pub fn validate(&self, kernel: &str) -> Result<(), Error> {
        let bad = |reason: String| {
            Err(Error::InvalidLaunch {
                kernel: kernel.to_string(),
                reason,
            })
        };
        let (g, b) = (self.grid, self.block);
        if self.oversized {
            return bad("`Launch::cover` needs more than 2^31 - 1 blocks; use larger blocks or a strided loop".into());
        }
        if g.x == 0 || g.y == 0 || g.z == 0 {
            return bad(format!("the grid {g} has a zero dimension"));
        }
        if b.x == 0 || b.y == 0 || b.z == 0 {
            return bad(format!("the block {b} has a zero dimension"));
        }
        if b.volume() > MAX_THREADS_PER_BLOCK {
            return bad(format!(
                "the block {b} has {} threads; the limit is {MAX_THREADS_PER_BLOCK}",
                b.volume()
            ));
        }
        if b.z > 64 {
            return bad(format!("the block {b} has z = {}; the limit is 64", b.z));
        }
        if g.x > i32::MAX as u32 {
            return bad(format!(
                "the grid {g} has x = {}; the limit is 2^31 - 1",
                g.x
            ));
        }
        if g.y > 65535 || g.z > 65535 {
            return bad(format!("the grid {g} exceeds 65535 blocks in y or z"));
        }
        // Dynamic shared memory is checked against the device: up to 227 KiB per block on
        // Hopper with the opt-in the CUDA back end sets; the simulator has no such limit.
        if self.shared_bytes > 256 * 1024 {
            return bad(format!("{} bytes of dynamic shared memory requested; no GPU has more than 256 KiB per block", self.shared_bytes));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cover_rounds_up() {
        let l = Launch::cover(1000, 256);
        assert_eq!(l.grid, Dim3::new(4, 1, 1));
        assert_eq!(l.block, Dim3::new(256, 1, 1));
        assert!(l.validate("k").is_ok());
    }

    #[test]
    fn invalid_launches_are_errors() {
        for l in [
            Launch::new(0, 256),
            Launch::new(1, 0),
            Launch::new(1, 2048),
            Launch::new(1, (32, 32, 2)),
            Launch::new(1, (1, 1, 128)),
            Launch::new((1, 70000), 32),
            Launch::cover(10, 0),
            Launch::cover(usize::MAX, 1),
            Launch::new(1, 32).shared_bytes(1 << 20),
        ] {
            let e = l.validate("k").expect_err("must be rejected");
            assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
        }
    }
}
