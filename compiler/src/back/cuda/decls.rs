//! Declarations of a kernel's arrays: `__shared__` arrays, or, beyond 48 KiB together,
//! references into dynamic shared memory at the offsets [`crate::ir::SharedLayout`] gives; the
//! array sized at launch after them; thread-local arrays; and the fault state.

use super::checks::FAULTS;
use super::syntax::c_type;
use super::writer::Writer;
use crate::back::namer::c_member_name;
use crate::ir::*;

impl Writer<'_> {
    /// The shared and thread-local arrays, and the fault state when the kernel reports.
    pub(super) fn declarations(&mut self) {
        let k = self.k;
        let layout = k.shared_layout();
        if layout.carved || k.has_dynamic_shared() {
            let align = if self.wgmma {
                SWIZZLE_ALIGN
            } else {
                CARVED_ALIGN
            };
            self.line(&format!(
                "extern __shared__ __align__({align}) unsigned char cuphase_dynamic_shared[];"
            ));
        }
        if layout.carved {
            self.line(&format!(
                "// The shared arrays take {} bytes, more than a block's 48 KiB of static shared memory: they",
                layout.fixed_bytes
            ));
            self.line("// are the start of its dynamic shared memory, which every launch sizes to hold them.");
        }
        for (h, a) in k.arrays.iter() {
            if let ArrayKind::Shared { dynamic: true, .. } = &a.kind {
                // The launch sizes it: `Launch::shared_bytes`.
                self.map_to(k.arrays.span(h));
                let ct = c_type(a.elem);
                let name = self.array_names[h.index()].clone();
                let len = self.len_names[h.index()].clone();
                self.uses_dynamic_shared = true;
                let base = layout.dynamic_base();
                let avail = if base == 0 {
                    "cuphase::dynamic_shared_bytes()".to_string()
                } else {
                    format!("(cuphase::dynamic_shared_bytes() - {base})")
                };
                self.line(&format!(
                    "{ct}* const {name} = reinterpret_cast<{ct}*>({});",
                    dynamic_at(base)
                ));
                let sized_by = match &a.kind {
                    ArrayKind::Shared {
                        len_param: Some(n), ..
                    } => k.param_named(n).and_then(|p| match p.kind {
                        ParamKind::Scalar { local, .. } => Some(self.local_name(local).to_string()),
                        ParamKind::Slice { .. } => None,
                    }),
                    _ => None,
                };
                // Read by `.len()` and bounds checks, so possibly by neither.
                match sized_by {
                    // The launch gives it `N` elements (the host glue sets the bytes).
                    Some(n) => self.line(&format!(
                        "[[maybe_unused]] const unsigned long long {len} = {n};"
                    )),
                    None => self.line(&format!(
                        "[[maybe_unused]] const unsigned long long {len} = {avail} / sizeof({ct});"
                    )),
                }
                continue;
            }
            if let ArrayKind::Shared { dims, .. } = &a.kind {
                self.map_to(k.arrays.span(h));
                let (ty, name, dims) = self.array_declaration(h, a.elem, dims);
                match layout.offsets[h.index()] {
                    // A reference to the array at its offset: indexed as the `__shared__` one is.
                    Some(offset) => self.line(&format!(
                        "{ty} (&{name}){dims} = *reinterpret_cast<{ty} (*){dims}>({});",
                        dynamic_at(offset)
                    )),
                    // A warpgroup multiply's tile starts on a swizzle atom.
                    None if self.swizzled[h.index()] => self.line(&format!(
                        "__shared__ __align__({SWIZZLE_ALIGN}) {ty} {name}{dims};"
                    )),
                    None => self.line(&format!("__shared__ {ty} {name}{dims};")),
                }
            }
        }
        for (h, a) in k.arrays.iter() {
            if let ArrayKind::Local { dims, .. } = &a.kind {
                self.map_to(k.arrays.span(h));
                let (ty, name, dims) = self.array_declaration(h, a.elem, dims);
                self.line(&format!("{ty} {name}{dims};"));
            }
        }
        if self.uses_record {
            self.line(&format!(
                "cuphase::Faults {FAULTS} = {{cuphase_record, cuphase_kernel, false}};"
            ));
        }
    }

    /// The parts of `float tile[8][128]`: the element type, the name and the dimensions; for an
    /// array of row records `f32x4 tile[8][32]` (the last dimension is the record's).
    fn array_declaration(
        &self,
        h: Handle<Array>,
        elem: Scalar,
        dims: &[u64],
    ) -> (String, String, String) {
        let name = self.array_names[h.index()].clone();
        let (ty, dims) = match self.rows[h.index()] {
            Some(rec) => (
                c_member_name(&self.k.records[rec].name),
                &dims[..dims.len().saturating_sub(1)],
            ),
            None => (c_type(elem).to_string(), dims),
        };
        let dims: String = dims.iter().map(|d| format!("[{d}]")).collect();
        (ty, name, dims)
    }
}

/// The address `offset` bytes into the block's dynamic shared memory.
fn dynamic_at(offset: u64) -> String {
    if offset == 0 {
        "cuphase_dynamic_shared".to_string()
    } else {
        format!("cuphase_dynamic_shared + {offset}")
    }
}
