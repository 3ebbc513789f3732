//! User structs (`#[derive(DeviceStruct)]`): their fields and C layout, and the scalars they
//! flatten to.
//!
//! A kernel never holds a struct as one value: a struct variable is one [`Local`](super::Local)
//! per scalar field (a *leaf*), and a `&[P]` parameter is one [`Array`](super::Array) per leaf
//! (each marked with its [`FieldOf`]), so every analysis sees scalars only, and two fields of
//! one element are two arrays, which never overlap. The writers put the struct back together:
//! the CUDA C declares `struct P` and indexes `ps[i].x`; the simulator projects the field's
//! cell out of the element's.

use super::Scalar;

/// A struct a kernel uses, with its layout as `#[repr(C)]` gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The Rust name (also the C name).
    pub name: String,
    /// The fields, in declaration order.
    pub fields: Vec<RecordField>,
    /// `size_of`.
    pub size: u64,
    /// `align_of`.
    pub align: u64,
}

/// One field of a [`Record`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordField {
    /// The Rust name.
    pub name: String,
    /// Its type.
    pub ty: FieldType,
    /// Its byte offset.
    pub offset: u64,
}

/// The type of a struct's field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// A scalar.
    Scalar(Scalar),
    /// Another struct, by index into [`super::Kernel::records`].
    Record(usize),
}

/// Which scalar field of which struct an array of a struct-slice parameter is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldOf {
    /// The struct, by index into [`super::Kernel::records`].
    pub record: usize,
    /// The leaf, in [`leaves`] order.
    pub leaf: usize,
    /// The parameter's Rust name (the array's own name is `ps.x`).
    pub base: String,
}

/// One scalar of a struct, nested structs flattened: the field indices from the outermost
/// struct down, and the scalar's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// Field indices, outermost first.
    pub path: Vec<usize>,
    /// Field names, outermost first (`["pos", "x"]`).
    pub names: Vec<String>,
    /// The scalar type.
    pub ty: Scalar,
}

/// The scalars of struct `r` of `records`, in declaration order, nested structs flattened.
pub fn leaves(records: &[Record], r: usize) -> Vec<Leaf> {
    let mut out = Vec::new();
    let Some(rec) = records.get(r) else {
        return out;
    };
    for (i, f) in rec.fields.iter().enumerate() {
        match f.ty {
            FieldType::Scalar(ty) => out.push(Leaf {
                path: vec![i],
                names: vec![f.name.clone()],
                ty,
            }),
            FieldType::Record(inner) => {
                for mut l in leaves(records, inner) {
                    l.path.insert(0, i);
                    l.names.insert(0, f.name.clone());
                    out.push(l);
                }
            }
        }
    }
    out
}

/// How many scalars a field of type `ty` holds.
pub fn leaf_count(records: &[Record], ty: FieldType) -> usize {
    match ty {
        FieldType::Scalar(_) => 1,
        FieldType::Record(r) => records.get(r).map_or(0, |rec| {
            rec.fields.iter().map(|f| leaf_count(records, f.ty)).sum()
        }),
    }
}

/// Field `name` of struct `r`: its type and the range of leaves it covers.
pub fn field_leaves(
    records: &[Record],
    r: usize,
    name: &str,
) -> Option<(FieldType, std::ops::Range<usize>)> {
    let rec = records.get(r)?;
    let mut start = 0;
    for f in &rec.fields {
        let n = leaf_count(records, f.ty);
        if f.name == name {
            return Some((f.ty, start..start + n));
        }
        start += n;
    }
    None
}
