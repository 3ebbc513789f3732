//! What the runtime knows of a compiled kernel: its [`KernelInfo`], one `static` per kernel
//! variant that `#[kernel]` generates.
//!
//! Takes the fault sites' types from `cuphase-contract` (re-exported here as [`FaultKind`] and
//! [`FaultSite`], the paths generated code names). Gives the kernel's description (CUDA C,
//! Rust location, the compiler's proofs, its fault sites) and [`dump`] for
//! `CUPHASE_DUMP_DIR`. Guarantees: nothing here fails a launch; a dump that cannot be written
//! is logged.

pub use cuphase_contract::{FaultKind, FaultSite};

/// A kernel as `#[kernel]` compiled it: one `static` per kernel, so its address identifies it.
#[derive(Debug)]
pub struct KernelInfo {
    /// The kernel's name, in Rust and in CUDA C.
    pub name: &'static str,
    /// The generated CUDA C.
    pub cuda_source: &'static str,
    /// The Rust file that defines the kernel; the NVRTC program name.
    pub rust_file: &'static str,
    /// The line of the kernel's name in that file.
    pub rust_line: u32,
    /// Whether to compile with `--use_fast_math`.
    pub fast_math: bool,
    /// The barrier analyses' report.
    pub report: &'static str,
    /// The kernel's warp operations need whole warps: they were proven warp-uniform for blocks
    /// whose x extent is a multiple of 32 (a condition like `thread_idx().x < 32`), or they
    /// multiply matrix fragments, which take all 32 lanes. Launches must have such blocks.
    pub whole_warps: bool,
    /// `#[kernel(block = (x, y, z))]`: the only block shape the kernel launches with.
    pub block_shape: Option<[u32; 3]>,
    /// The block rank the kernel's shared-memory proof assumes: 1 (blocks must be 1-D),
    /// 2 (z must be 1) or 3 (no constraint).
    pub block_rank: u8,
    /// The compiler proved every shared-memory access of the kernel race-free (none is in
    /// `unsafe`): the simulator may skip shared-memory race detection.
    pub shared_proven: bool,
    /// Bytes of `shared::<..>()` arrays of fixed size per block, declared `__shared__`: at most
    /// 48 KiB, the most static shared memory a block may have; 0 when they take more together.
    pub static_shared_bytes: u32,
    /// Bytes of dynamic shared memory the kernel's fixed-size `shared::<..>()` arrays take when
    /// together they are more than 48 KiB (0 otherwise): they are carved from the start of its
    /// dynamic shared memory, and every launch adds these bytes to its own
    /// ([`Launch::shared_bytes`](crate::Launch::shared_bytes)).
    pub dynamic_shared_base: u32,
    /// The generated code's fault checks, by the site number it reports.
    pub fault_sites: &'static [FaultSite],
    /// The kernel takes the fault record parameters.
    pub uses_fault_record: bool,
    /// The kernel prints (`print!`/`println!`): its last parameter says whether each call's
    /// text starts with the block and thread ([`Launch::print_ids`](crate::Launch::print_ids)).
    pub prints: bool,
    /// For a kernel with const generic parameters, whose `cuda_source` is a function template:
    /// the kernel of one instance, with `$i$` for the `i`-th value (see [`instance`]). Empty
    /// for other kernels.
    pub instance: &'static str,
}

/// The value of one const generic parameter of a kernel, for [`instance`]: the value and the
/// suffix of its C literal (`u` for `256u`), or `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstValue {
    /// The value (`true` is 1).
    pub value: i128,
    /// `""`, `u`, `ll`, `ull`, or `bool`.
    pub suffix: &'static str,
}

impl ConstValue {
    /// The C literal: `256u`, `-3`, `true`; `i64::MIN` as an expression, since C has no
    /// literal of it.
    fn c_literal(self) -> String {
        match self.suffix {
            "bool" => (self.value != 0).to_string(),
            "ll" if self.value == i128::from(i64::MIN) => "(-9223372036854775807ll - 1)".into(),
            "" if self.value == i128::from(i32::MIN) => "(-2147483647 - 1)".into(),
            suffix => format!("{}{suffix}", self.value),
        }
    }
}

/// The kernel of `base` for these values of its const generic parameters: `base` with its
/// CUDA C completed by the instance (`extern "C" __global__ void k(..) { k_body<256u>(..); }`),
/// made once per kernel variant and values and kept for the process (so the module cache,
/// keyed by the `KernelInfo`, compiles each instance once, and the disk cache, keyed by the
/// source, once per machine). A kernel without const generics is `base` itself.
pub fn instance(base: &'static KernelInfo, values: &[ConstValue]) -> &'static KernelInfo {
    use std::sync::{Mutex, OnceLock};
    type Instances = Vec<(usize, Vec<ConstValue>, &'static KernelInfo)>;
    static INSTANCES: OnceLock<Mutex<Instances>> = OnceLock::new();
    if base.instance.is_empty() {
        return base;
    }
    let key = base as *const KernelInfo as usize;
    let mut all = INSTANCES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some((_, _, info)) = all.iter().find(|(k, v, _)| *k == key && v == values) {
        return info;
    }
    let mut kernel = base.instance.to_string();
    for (i, v) in values.iter().enumerate() {
        kernel = kernel.replace(&format!("${i}$"), &v.c_literal());
    }
    let source: &'static str = Box::leak(format!("{}{kernel}", base.cuda_source).into_boxed_str());
    let info: &'static KernelInfo = Box::leak(Box::new(KernelInfo {
        cuda_source: source,
        instance: "",
        ..*base
    }));
    all.push((key, values.to_vec(), info));
    info
}

/// With `CUPHASE_DUMP_DIR` set, writes the kernel's CUDA C (`<name>.cu`) and report
/// (`<name>.report.txt`) there, once per kernel and process. Failures are logged, not fatal.
pub fn dump(info: &'static KernelInfo) {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static DONE: OnceLock<Mutex<HashSet<usize>>> = OnceLock::new();
    let Some(dir) = std::env::var_os("CUPHASE_DUMP_DIR").filter(|d| !d.is_empty()) else {
        return;
    };
    let done = DONE.get_or_init(|| Mutex::new(HashSet::new()));
    let first = done
        .lock()
        .map(|mut d| d.insert(info as *const KernelInfo as usize))
        .unwrap_or(false);
    if !first {
        return;
    }
    let dir = std::path::PathBuf::from(dir);
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("{}.cu", info.name)), info.cuda_source)?;
        std::fs::write(dir.join(format!("{}.report.txt", info.name)), info.report)
    };
    if let Err(e) = write() {
        tracing::warn!(kernel = info.name, dir = %dir.display(), error = %e, "cuphase: CUPHASE_DUMP_DIR not written");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(instance: &'static str) -> &'static KernelInfo {
        Box::leak(Box::new(KernelInfo {
            name: "k",
            cuda_source: "template <int S> __device__ void k_body() {}\n",
            rust_file: "k.rs",
            rust_line: 1,
            fast_math: false,
            report: "",
            whole_warps: false,
            block_shape: None,
            block_rank: 3,
            shared_proven: false,
            static_shared_bytes: 0,
            dynamic_shared_base: 0,
            fault_sites: &[],
            uses_fault_record: false,
            prints: false,
            instance,
        }))
    }

    #[test]
    fn instances_are_made_once_per_value_with_c_literals() {
        let b = base("extern \"C\" __global__ void k() { k_body<$0$, $1$>(); }\n");
        let v = |value, suffix| ConstValue { value, suffix };
        let a = instance(b, &[v(-3, ""), v(1, "bool")]);
        assert!(
            a.cuda_source.ends_with("k_body<-3, true>(); }\n"),
            "{}",
            a.cuda_source
        );
        assert!(a.cuda_source.starts_with(b.cuda_source));
        assert!(a.instance.is_empty());
        assert!(std::ptr::eq(a, instance(b, &[v(-3, ""), v(1, "bool")])));
        let c = instance(b, &[v(i128::from(i64::MIN), "ll"), v(0, "bool")]);
        assert!(
            c.cuda_source
                .contains("k_body<(-9223372036854775807ll - 1), false>"),
            "{}",
            c.cuda_source
        );
        assert!(!std::ptr::eq(a, c));
        let d = instance(b, &[v(i128::from(u64::MAX), "ull"), v(1, "bool")]);
        assert!(d
            .cuda_source
            .contains("k_body<18446744073709551615ull, true>"));
        // A kernel without const generics is itself.
        let plain = base("");
        assert!(std::ptr::eq(instance(plain, &[]), plain));
    }
}
