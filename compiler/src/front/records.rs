//! The `#[derive(DeviceStruct)]` structs of a kernel's source file, for the front end.
//!
//! A kernel names a struct (`&[Particle]`, `Particle { x, y }`) whose definition rustc sees,
//! not the macro: as with module constants (see [`super::consts`]), the macro reads the
//! kernel's file and takes the fields of each `#[repr(C)]` struct deriving `DeviceStruct` there.
//! It computes the C layout itself; the glue asserts rustc's `size_of`, `align_of`, field
//! offsets and field types equal it (a struct the macro misread is a compile error, never a
//! wrong access), and the CUDA C asserts the same layout with `static_assert`. A struct defined
//! elsewhere, twice in the file, or under `#[cfg]` is not known: using it is an error that says
//! so.

use crate::ir::{leaf_count, FieldType, Record, RecordField, Scalar};
use std::collections::HashMap;

/// The known structs of one file, by name.
#[derive(Clone, Debug, Default)]
pub struct Records {
    defs: HashMap<String, Vec<Def>>,
}

/// One struct as written.
#[derive(Clone, Debug)]
struct Def {
    fields: Vec<(String, Written)>,
    /// Why the struct cannot be a kernel's, if it cannot.
    unusable: Option<String>,
}

/// A field's type as written.
#[derive(Clone, Debug)]
enum Written {
    Scalar(Scalar),
    Named(String),
    /// `[T; N]`, with `N` an integer literal or a constant of the file.
    Array(Box<Written>, u64),
    Other(String),
}

/// The most scalars a struct a kernel uses may hold, array fields counted element by element:
/// a struct variable is one register per scalar.
pub const MAX_LEAVES: usize = 1024;

/// Whether the attributes hold `#[repr(C)]` (alone or with `align`/`packed` ones, which are
/// then rejected elsewhere).
pub fn is_repr_c(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("repr")
            && a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|list| list.iter().any(|m| m.path().is_ident("C")))
    })
}

/// Whether a `#[derive(..)]` of the attributes lists `DeviceStruct` (by any path).
fn derives_device_struct(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("derive")
            && a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|list| {
                list.iter()
                    .any(|p| p.segments.last().is_some_and(|s| s.ident == "DeviceStruct"))
            })
    })
}

impl Records {
    /// The structs of a parsed file (inline modules included).
    /// `len` gives the value of an array field's length expression, if known.
    pub fn of_file(file: &syn::File, len: &dyn Fn(&syn::Expr) -> Option<i128>) -> Records {
        let mut r = Records::default();
        r.collect(&file.items, len);
        r
    }

    fn collect(&mut self, items: &[syn::Item], len: &dyn Fn(&syn::Expr) -> Option<i128>) {
        for item in items {
            match item {
                syn::Item::Struct(s) if derives_device_struct(&s.attrs) => {
                    let def = Def::of(s, len);
                    self.defs.entry(s.ident.to_string()).or_default().push(def);
                }
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        self.collect(inner, len);
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether the file defines a struct `name` deriving `DeviceStruct`.
    pub fn knows(&self, name: &str) -> bool {
        self.defs.contains_key(name)
    }

    /// Struct `name` as one of `records` (added, with the structs its fields name before it,
    /// if not there yet): its index, or why it cannot be used.
    pub fn resolve(&self, name: &str, records: &mut Vec<Record>) -> Result<usize, String> {
        self.resolve_depth(name, records, 0)
    }

    fn resolve_depth(
        &self,
        name: &str,
        records: &mut Vec<Record>,
        depth: usize,
    ) -> Result<usize, String> {
        if let Some(i) = records.iter().position(|r| r.name == name) {
            return Ok(i);
        }
        if depth > 16 {
            return Err(format!("struct `{name}` contains itself"));
        }
        let def = match self.defs.get(name).map(Vec::as_slice) {
            Some([d]) => d,
            Some(_) => {
                return Err(format!(
                    "struct `{name}` is defined more than once in this file; cuphase cannot tell which one the kernel uses"
                ))
            }
            None => {
                return Err(format!(
                    "`{name}` is not a struct deriving `DeviceStruct` in this kernel's file; kernels take `#[repr(C)] #[derive(Clone, Copy, DeviceStruct)] struct {name} {{ .. }}` defined in the same file"
                ))
            }
        };
        if let Some(why) = &def.unusable {
            return Err(format!("struct `{name}` cannot be used in kernels: {why}"));
        }
        let mut fields = Vec::new();
        let (mut offset, mut align) = (0u64, 1u64);
        for (fname, w) in &def.fields {
            let (ty, size, a) = self.field_type(name, fname, w, records, depth)?;
            let too_large = || format!("struct `{name}` is too large");
            offset = offset.div_ceil(a).checked_mul(a).ok_or_else(too_large)?;
            fields.push(RecordField {
                name: fname.clone(),
                ty,
                offset,
            });
            offset = offset.checked_add(size).ok_or_else(too_large)?;
            align = align.max(a);
        }
        let size = offset
            .div_ceil(align)
            .checked_mul(align)
            .ok_or_else(|| format!("struct `{name}` is too large"))?;
        records.push(Record {
            name: name.to_string(),
            fields,
            size,
            align,
            vector: false,
        });
        let n = leaf_count(records, &FieldType::Record(records.len() - 1));
        if n > MAX_LEAVES {
            records.pop();
            return Err(format!(
                "struct `{name}` holds {n} scalars (array elements counted one by one); structs in kernels hold at most {MAX_LEAVES}"
            ));
        }
        Ok(records.len() - 1)
    }

    /// The type, size and alignment of field `fname` of struct `name`, written `w`.
    fn field_type(
        &self,
        name: &str,
        fname: &str,
        w: &Written,
        records: &mut Vec<Record>,
        depth: usize,
    ) -> Result<(FieldType, u64, u64), String> {
        Ok(match w {
            Written::Scalar(s) => (FieldType::Scalar(*s), s.size_bytes(), s.size_bytes()),
            Written::Named(n) => {
                let i = self.resolve_depth(n, records, depth + 1)?;
                (FieldType::Record(i), records[i].size, records[i].align)
            }
            Written::Array(elem, len) => {
                if *len == 0 {
                    return Err(format!(
                        "field `{fname}` of struct `{name}` is an array of length 0, which kernels cannot hold"
                    ));
                }
                let (ty, size, align) = self.field_type(name, fname, elem, records, depth)?;
                let size = size.checked_mul(*len).ok_or_else(|| {
                    format!("field `{fname}` of struct `{name}` is too large")
                })?;
                (FieldType::Array(Box::new(ty), *len), size, align)
            }
            Written::Other(t) => {
                return Err(format!(
                    "field `{fname}` of struct `{name}` has type `{t}`; struct fields in kernels are scalars, other `DeviceStruct`s, or arrays `[T; N]` of those with `N` an integer literal or a constant of this file"
                ))
            }
        })
    }
}

impl Def {
    fn of(s: &syn::ItemStruct, len: &dyn Fn(&syn::Expr) -> Option<i128>) -> Def {
        let mut unusable = None;
        if !is_repr_c(&s.attrs) {
            unusable = Some("it is not `#[repr(C)]`".to_string());
        }
        let reprs_other = s.attrs.iter().any(|a| {
            a.path().is_ident("repr")
                && a.parse_args_with(
                    syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                )
                .is_ok_and(|list| list.iter().any(|m| !m.path().is_ident("C")))
        });
        if reprs_other {
            unusable = Some("cuphase supports plain `#[repr(C)]`, not `packed` or `align`".into());
        }
        if s.attrs.iter().any(|a| a.path().is_ident("cfg")) {
            unusable = Some("it is defined under `#[cfg]`".into());
        }
        if !s.generics.params.is_empty() {
            unusable = Some("it is generic".into());
        }
        let mut fields = Vec::new();
        match &s.fields {
            syn::Fields::Named(named) => {
                for f in &named.named {
                    let name = f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
                    if f.attrs.iter().any(|a| a.path().is_ident("cfg")) {
                        unusable = Some(format!("field `{name}` is under `#[cfg]`"));
                    }
                    fields.push((name, Written::of(&f.ty, len)));
                }
            }
            _ => unusable = Some("its fields are not named".into()),
        }
        if fields.is_empty() && unusable.is_none() {
            unusable = Some("it has no fields".into());
        }
        Def { fields, unusable }
    }
}

impl Written {
    fn of(t: &syn::Type, len: &dyn Fn(&syn::Expr) -> Option<i128>) -> Written {
        match t {
            syn::Type::Path(p) if p.qself.is_none() => {
                let last = p.path.segments.last().map(|s| s.ident.to_string());
                let last = last.unwrap_or_default();
                // `half::f16` and `f16` alike.
                if let Some(s) = Scalar::from_rust_name(&last) {
                    return Written::Scalar(s);
                }
                if p.path.segments.len() == 1 {
                    return Written::Named(last);
                }
                Written::Other(quote::ToTokens::to_token_stream(t).to_string())
            }
            syn::Type::Array(a) => match len(&a.len).and_then(|n| u64::try_from(n).ok()) {
                Some(n) => Written::Array(Box::new(Written::of(&a.elem, len)), n),
                None => Written::Other(quote::ToTokens::to_token_stream(t).to_string()),
            },
            syn::Type::Group(g) => Written::of(&g.elem, len),
            syn::Type::Paren(p) => Written::of(&p.elem, len),
            other => Written::Other(quote::ToTokens::to_token_stream(other).to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(src: &str) -> Records {
        crate::front::consts::ModuleConsts::of_source(src).records
    }

    #[test]
    fn layouts_are_cs() {
        let r = records(
            "#[repr(C)] #[derive(Clone, Copy, DeviceStruct)] struct V { a: u8, b: f64, c: u16 }\n\
             #[repr(C)] #[derive(Clone, Copy, cuphase::DeviceStruct)] struct W { v: V, x: f32 }",
        );
        let mut recs = Vec::new();
        let w = r.resolve("W", &mut recs).unwrap_or(usize::MAX);
        assert_eq!(recs.len(), 2);
        let v = &recs[0];
        assert_eq!(v.name, "V");
        let offsets: Vec<u64> = v.fields.iter().map(|f| f.offset).collect();
        assert_eq!(offsets, [0, 8, 16]);
        assert_eq!((v.size, v.align), (24, 8));
        let w = &recs[w];
        assert_eq!(w.fields[1].offset, 24);
        assert_eq!((w.size, w.align), (32, 8));
    }

    #[test]
    fn array_fields_are_laid_out_element_by_element() {
        let src = "const N: usize = 2 + 1;
             #[repr(C)] #[derive(Clone, Copy, DeviceStruct)] struct V { a: u8, b: u16 }
             #[repr(C)] #[derive(Clone, Copy, DeviceStruct)] struct A { t: u8, xs: [f64; N], vs: [V; 2], m: [[u8; 3]; 2] }";
        let consts = crate::front::consts::ModuleConsts::of_source(src);
        let mut recs = Vec::new();
        let a = consts.records.resolve("A", &mut recs).unwrap_or(usize::MAX);
        let a = &recs[a];
        let offsets: Vec<u64> = a.fields.iter().map(|f| f.offset).collect();
        assert_eq!(offsets, [0, 8, 32, 40]);
        assert_eq!((a.size, a.align), (48, 8));
        let leaves = crate::ir::leaves(&recs, 1);
        assert_eq!(leaves.len(), 1 + 3 + 4 + 6);
        assert_eq!(leaves[5].rust_path(), ".vs[0].b");
        assert_eq!(leaves[13].ident(), "m_1_2");
    }

    #[test]
    fn unusable_structs_say_why() {
        let r = records(
            "#[derive(Clone, Copy, DeviceStruct)] struct NoRepr { a: f32 }\n\
             #[repr(C, packed)] #[derive(DeviceStruct)] struct Packed { a: f32 }\n\
             #[repr(C)] #[derive(DeviceStruct)] struct Arr { a: [f32; M] }\n\
             #[repr(C)] #[derive(DeviceStruct)] struct Empty { a: [f32; 0] }\n\
             #[repr(C)] #[derive(DeviceStruct)] struct Huge { a: [[f32; 64]; 64] }\n\
             #[repr(C)] #[derive(DeviceStruct)] struct Wide { a: u8, b: [u8; 18446744073709551615] }\n\
             #[repr(C)] #[derive(DeviceStruct)] struct Twice { a: f32 }\n\
             mod m { #[repr(C)] #[derive(DeviceStruct)] struct Twice { a: f32 } }\n\
             #[repr(C)] #[derive(Clone, Copy)] struct NotDerived { a: f32 }",
        );
        for (name, says) in [
            ("NoRepr", "not `#[repr(C)]`"),
            ("Packed", "packed"),
            ("Arr", "type `[f32 ; M]`"),
            ("Empty", "length 0"),
            ("Huge", "holds 4096 scalars"),
            ("Wide", "too large"),
            ("Twice", "more than once"),
            ("NotDerived", "not a struct deriving `DeviceStruct`"),
            ("Missing", "not a struct deriving `DeviceStruct`"),
        ] {
            let e = r.resolve(name, &mut Vec::new()).err().unwrap_or_default();
            assert!(e.contains(says), "{name}: {e}");
        }
    }
}
