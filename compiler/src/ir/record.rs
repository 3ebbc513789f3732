//! User structs (`#[derive(DeviceStruct)]`): their fields and C layout, and the scalars they
//! flatten to.
//!
//! A kernel never holds a struct as one value: a struct variable is one [`Local`](super::Local)
//! per scalar field (a *leaf*; each element of an array field is one too), and a `&[P]`
//! parameter is one [`Array`](super::Array) per leaf
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
    /// `align_of` (in C; for a [`Record::vector`], more than Rust's).
    pub align: u64,
    /// The element type `[T; N]` of a slice parameter (`&[[f32; 4]]`), which the kernel
    /// holds as this one-field struct: in C `struct f32x4 { float v[4]; }`, aligned to its
    /// size (up to 16 bytes) so that an element's loads and stores become one vector access;
    /// in Rust the array itself (whose alignment is its scalar's: the host glue checks the
    /// size only). Its only field is `v`, which Rust text never names (`a[i][1]`).
    pub vector: bool,
}

/// The C name of the vector record of `[elem; n]`: `f32x4`.
pub fn vector_name(elem: Scalar, n: u64) -> String {
    format!("{}x{n}", elem.rust_name())
}

impl Record {
    /// The record that holds one `[elem; n]` element of a slice (see [`Record::vector`]),
    /// aligned to the largest power of two that divides its size, at most 16 bytes and at
    /// least the scalar's own alignment.
    pub fn vector(elem: Scalar, n: u64) -> Record {
        let size = elem.size_bytes().saturating_mul(n);
        let pow2 = if size == 0 {
            1
        } else {
            1u64 << size.trailing_zeros()
        };
        Record {
            name: vector_name(elem, n),
            fields: vec![RecordField {
                name: "v".to_string(),
                ty: FieldType::Array(Box::new(FieldType::Scalar(elem)), n),
                offset: 0,
            }],
            size,
            align: pow2.clamp(elem.size_bytes().max(1), 16),
            vector: true,
        }
    }

    /// The name of the array that holds `leaf` of an array `base` of this record: `ps.pos.x`,
    /// or `a.[2]` for a vector record (see [`super::Array::element_text`]).
    pub fn leaf_array_name(&self, base: &str, leaf: &Leaf) -> String {
        if !self.vector {
            return format!("{base}{}", leaf.rust_path());
        }
        let rest = Leaf {
            path: leaf.path.get(1..).unwrap_or_default().to_vec(),
            ty: leaf.ty,
        };
        format!("{base}.{}", rest.rust_path())
    }

    /// The type a value of this record has in Rust text: the struct, or a vector record's
    /// array (`[f32; 4]`).
    pub fn value_type(&self, index: usize) -> FieldType {
        match (self.vector, self.fields.first()) {
            (true, Some(f)) => f.ty.clone(),
            _ => FieldType::Record(index),
        }
    }
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// A scalar.
    Scalar(Scalar),
    /// Another struct, by index into [`super::Kernel::records`].
    Record(usize),
    /// `[T; N]`: `N` elements of the type, each flattened to leaves in turn (`pos[0]`,
    /// `pos[1]`, ..).
    Array(Box<FieldType>, u64),
}

impl FieldType {
    /// The element type and length of an array type.
    pub fn as_array(&self) -> Option<(&FieldType, u64)> {
        match self {
            FieldType::Array(elem, n) => Some((elem, *n)),
            _ => None,
        }
    }
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

/// One step from a struct down to one of its scalars.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Field `index` (in declaration order) of a struct, called `name`.
    Field { index: usize, name: String },
    /// Element `k` of an array field.
    Element(u64),
}

/// One scalar of a struct, nested structs and array fields flattened: the steps from the
/// outermost struct down, and the scalar's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// The steps, outermost first (`pos`, `[2]`, `x`).
    pub path: Vec<Step>,
    /// The scalar type.
    pub ty: Scalar,
}

impl Leaf {
    /// The Rust text of the path after a struct value: `.pos[2].x`.
    pub fn rust_path(&self) -> String {
        self.path
            .iter()
            .map(|s| match s {
                Step::Field { name, .. } => format!(".{name}"),
                Step::Element(k) => format!("[{k}]"),
            })
            .collect()
    }

    /// The path as part of an identifier: `pos_2_x`.
    pub fn ident(&self) -> String {
        let parts: Vec<String> = self
            .path
            .iter()
            .map(|s| match s {
                Step::Field { name, .. } => name.trim_start_matches("r#").to_string(),
                Step::Element(k) => k.to_string(),
            })
            .collect();
        parts.join("_")
    }
}

/// The scalars of struct `r` of `records`, in declaration order, nested structs and arrays
/// flattened.
pub fn leaves(records: &[Record], r: usize) -> Vec<Leaf> {
    let mut out = Vec::new();
    if let Some(rec) = records.get(r) {
        for (index, f) in rec.fields.iter().enumerate() {
            let step = Step::Field {
                index,
                name: f.name.clone(),
            };
            push_leaves(records, &f.ty, &mut vec![step], &mut out);
        }
    }
    out
}

/// The scalars of a value of type `ty` reached by `prefix`, appended to `out`.
fn push_leaves(records: &[Record], ty: &FieldType, prefix: &mut Vec<Step>, out: &mut Vec<Leaf>) {
    match ty {
        FieldType::Scalar(s) => out.push(Leaf {
            path: prefix.clone(),
            ty: *s,
        }),
        FieldType::Record(r) => {
            for mut l in leaves(records, *r) {
                l.path.splice(0..0, prefix.iter().cloned());
                out.push(l);
            }
        }
        FieldType::Array(elem, n) => {
            for k in 0..*n {
                prefix.push(Step::Element(k));
                push_leaves(records, elem, prefix, out);
                prefix.pop();
            }
        }
    }
}

/// How many scalars a field of type `ty` holds.
pub fn leaf_count(records: &[Record], ty: &FieldType) -> usize {
    match ty {
        FieldType::Scalar(_) => 1,
        FieldType::Record(r) => records.get(*r).map_or(0, |rec| {
            rec.fields.iter().map(|f| leaf_count(records, &f.ty)).sum()
        }),
        FieldType::Array(elem, n) => {
            leaf_count(records, elem).saturating_mul(usize::try_from(*n).unwrap_or(usize::MAX))
        }
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
        let n = leaf_count(records, &f.ty);
        if f.name == name {
            return Some((f.ty.clone(), start..start + n));
        }
        start += n;
    }
    None
}
