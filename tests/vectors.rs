//! Vector memory access (issue 13 §1): slices of arrays (`&[[f32; 4]]`) whose elements are
//! read and written whole, and rows of shared arrays copied whole. The CUDA C gives such an
//! element a C type aligned to its size (`struct __align__(16) f32x4 { float v[4]; }`), so
//! NVCC makes each whole access one vector instruction (`LDG.E.128`, `STS.128`). The cases
//! join `cases::all()`, so the GPU is compared with the simulator bit for bit; the tests here
//! check the simulator against host references, the bounds check of a computed index into an
//! element, and the generated C.

use crate::cases::Case;
use cuphase::prelude::*;

/// `y = a * x + y` over four floats a thread: one 16-byte load of each input, one store.
#[kernel]
pub fn saxpy4(y: &mut [[f32; 4]], x: &[[f32; 4]], a: f32) {
    let i = global_idx().x as usize;
    if i < y.len() {
        let xv: [f32; 4] = x[i];
        let mut yv = y[i];
        for k in 0..4 {
            yv[k] = a.mul_add(xv[k], yv[k]);
        }
        y[i] = yv;
    }
}

/// Reverses the order of 4-float chunks in each block of 128 chunks, and the floats in each
/// chunk: whole elements through whole rows of a shared array.
#[kernel(block = 128)]
pub fn reverse4(out: &mut [[f32; 4]], input: &[[f32; 4]]) {
    let tile = shared::<[[f32; 4]; 128]>();
    let t = thread_idx().x;
    let i = global_idx().x as usize;
    if i < input.len() {
        tile[t] = input[i];
    }
    sync_block_threads();
    let r = 127 - t;
    if i < out.len() {
        let v = tile[r];
        out[i] = [v[3], v[2], v[1], v[0]];
    }
}

/// Whole-array assignments to a thread-local `[f32; 4]`: from an element of a slice, then
/// from a literal that reads the array itself (Rust computes the value whole first: a swap).
#[kernel(block = 64)]
pub fn swap4(out: &mut [[f32; 4]], input: &[[f32; 4]]) {
    let i = global_idx().x as usize;
    let mut v = [0.0f32; 4];
    if i < input.len() {
        v = input[i];
    }
    v = [v[1], v[0], v[3], v[2]];
    if i < out.len() {
        out[i] = v;
    }
}

/// Elements of other shapes (8, 12 and 16 bytes, one byte wide), a computed index into an
/// element in memory, a whole element written from a literal, and one lane of an element.
#[kernel]
pub fn shapes(
    pairs: &mut [[u32; 2]],
    triples: &[[i32; 3]],
    wide: &[[f64; 2]],
    bytes: &mut [[u8; 4]],
    pick: &[u32],
) {
    let i = global_idx().x as usize;
    if i < pairs.len() {
        let t = triples[i];
        let k = pick[i];
        pairs[i] = [(t[0] + t[1]) as u32, t[2] as u32];
        pairs[i][1] += triples[i][k] as u32;
        let w = wide[i];
        let last = bytes[i][3];
        bytes[i] = [w[0] as u8, w[1] as u8, k as u8, last];
        bytes[i][k] ^= 0x80;
    }
}

fn chunks(n: usize, salt: u32) -> Vec<[f32; 4]> {
    (0..n as u32)
        .map(|i| {
            let f = |j: u32| ((i * 4 + j).wrapping_mul(2_654_435_761) ^ salt) % 2000;
            [0, 1, 2, 3].map(|j| f(j) as f32 * 0.01 - 10.0)
        })
        .collect()
}

fn f32_bits(v: &[[f32; 4]]) -> Vec<u64> {
    v.iter().flatten().map(|x| u64::from(x.to_bits())).collect()
}

struct ShapesInput {
    pairs: Vec<[u32; 2]>,
    triples: Vec<[i32; 3]>,
    wide: Vec<[f64; 2]>,
    bytes: Vec<[u8; 4]>,
    pick: Vec<u32>,
}

fn shapes_input(n: usize) -> ShapesInput {
    let n32 = n as u32;
    ShapesInput {
        pairs: (0..n32).map(|i| [i, i * 3]).collect(),
        triples: (0..n as i32).map(|i| [i - 7, 2 * i, -i]).collect(),
        wide: (0..n).map(|i| [i as f64 * 1.5, 300.0 - i as f64]).collect(),
        bytes: (0..n32).map(|i| [0, 0, 0, (i * 37) as u8]).collect(),
        pick: (0..n32).map(|i| (i * 7) % 3).collect(),
    }
}

fn shapes_host(s: &mut ShapesInput) {
    for i in 0..s.pairs.len() {
        let t = s.triples[i];
        let k = s.pick[i] as usize;
        s.pairs[i] = [(t[0] + t[1]) as u32, t[2] as u32];
        s.pairs[i][1] = s.pairs[i][1].wrapping_add(t[k] as u32);
        let w = s.wide[i];
        let last = s.bytes[i][3];
        s.bytes[i] = [w[0] as u8, w[1] as u8, k as u8, last];
        s.bytes[i][k] ^= 0x80;
    }
}

fn shapes_bits(pairs: &[[u32; 2]], bytes: &[[u8; 4]]) -> Vec<u64> {
    let mut v: Vec<u64> = pairs.iter().flatten().map(|x| u64::from(*x)).collect();
    v.extend(bytes.iter().map(|b| u64::from(u32::from_le_bytes(*b))));
    v
}

/// The cases, for `cases::all()`.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "swap4",
            run: |dev| {
                let input = dev.upload(&chunks(1000, 4))?;
                let mut out = dev.zeros::<[f32; 4]>(input.len())?;
                swap4.launch(dev, Launch::cover(input.len(), 64), &mut out, &input)?;
                Ok(f32_bits(&out.to_vec()?))
            },
            expected: || {
                let v: Vec<[f32; 4]> = chunks(1000, 4)
                    .iter()
                    .map(|c| [c[1], c[0], c[3], c[2]])
                    .collect();
                f32_bits(&v)
            },
        },
        Case {
            name: "saxpy4",
            run: |dev| {
                let x = dev.upload(&chunks(1000, 1))?;
                let mut y = dev.upload(&chunks(1000, 2))?;
                saxpy4.launch(dev, Launch::cover(y.len(), 128), &mut y, &x, 1.5)?;
                Ok(f32_bits(&y.to_vec()?))
            },
            expected: || {
                let x = chunks(1000, 1);
                let mut y = chunks(1000, 2);
                for (yv, xv) in y.iter_mut().zip(&x) {
                    for k in 0..4 {
                        yv[k] = 1.5f32.mul_add(xv[k], yv[k]);
                    }
                }
                f32_bits(&y)
            },
        },
        Case {
            name: "reverse4",
            run: |dev| {
                let input = dev.upload(&chunks(128 * 9, 3))?;
                let mut out = dev.zeros::<[f32; 4]>(input.len())?;
                reverse4.launch(dev, Launch::cover(input.len(), 128), &mut out, &input)?;
                Ok(f32_bits(&out.to_vec()?))
            },
            expected: || {
                let input = chunks(128 * 9, 3);
                let mut out = input.clone();
                for (b, block) in out.chunks_mut(128).enumerate() {
                    for (t, o) in block.iter_mut().enumerate() {
                        let v = input[b * 128 + 127 - t];
                        *o = [v[3], v[2], v[1], v[0]];
                    }
                }
                f32_bits(&out)
            },
        },
        Case {
            name: "shapes",
            run: |dev| {
                let s = shapes_input(300);
                let mut pairs = dev.upload(&s.pairs)?;
                let mut bytes = dev.upload(&s.bytes)?;
                let (triples, wide, pick) = (
                    dev.upload(&s.triples)?,
                    dev.upload(&s.wide)?,
                    dev.upload(&s.pick)?,
                );
                let l = Launch::cover(pairs.len(), 64);
                shapes.launch(dev, l, &mut pairs, &triples, &wide, &mut bytes, &pick)?;
                Ok(shapes_bits(&pairs.to_vec()?, &bytes.to_vec()?))
            },
            expected: || {
                let mut s = shapes_input(300);
                shapes_host(&mut s);
                shapes_bits(&s.pairs, &s.bytes)
            },
        },
    ]
}

/// The kernels' CUDA C, for the NVRTC tests.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (saxpy4.name(), saxpy4.cuda_source()),
        (reverse4.name(), reverse4.cuda_source()),
        (shapes.name(), shapes.cuda_source()),
    ]
}

#[test]
fn vector_kernels_match_the_host_on_the_simulator() {
    let dev = Device::cpu().unwrap();
    for case in cases() {
        let got = (case.run)(&dev).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(got, (case.expected)(), "{}", case.name);
    }
}

#[test]
fn a_computed_index_past_an_element_is_out_of_bounds() {
    let dev = Device::cpu().unwrap();
    let mut s = shapes_input(64);
    s.pick[5] = 3;
    let mut pairs = dev.upload(&s.pairs).unwrap();
    let mut bytes = dev.upload(&s.bytes).unwrap();
    let (triples, wide, pick) = (
        dev.upload(&s.triples).unwrap(),
        dev.upload(&s.wide).unwrap(),
        dev.upload(&s.pick).unwrap(),
    );
    let l = Launch::cover(pairs.len(), 64);
    let err = shapes
        .launch(&dev, l, &mut pairs, &triples, &wide, &mut bytes, &pick)
        .and_then(|()| dev.synchronize())
        .expect_err("index 3 into a [i32; 3] element");
    let text = err.to_string();
    assert!(matches!(err, Error::OutOfBounds { .. }), "{text}");
    assert!(text.contains("tests/vectors.rs"), "{text}");
}

#[test]
fn the_cuda_c_gives_vector_elements_aligned_types() {
    let src = saxpy4.cuda_source();
    for needle in [
        "struct __align__(16) f32x4 {\n    float v[4];\n};",
        "f32x4* __restrict__ y,",
        "const f32x4* __restrict__ x,",
    ] {
        assert!(src.contains(needle), "missing {needle:?} in:\n{src}");
    }
    let src = shapes.cuda_source();
    for needle in [
        "struct __align__(8) u32x2 {\n    unsigned int v[2];\n};",
        "struct __align__(4) i32x3 {\n    int v[3];\n};",
        "struct __align__(16) f64x2 {\n    double v[2];\n};",
        "struct __align__(4) u8x4 {\n    unsigned char v[4];\n};",
    ] {
        assert!(src.contains(needle), "missing {needle:?} in:\n{src}");
    }
    // A whole element is copied in one access (one 16-byte load and store whatever NVCC
    // does with the lanes) into a shared array of the records, and back out of it.
    let src = reverse4.cuda_source();
    assert!(src.contains("__shared__ f32x4 tile[128];"), "in:\n{src}");
    // (With bounds checks the element is held until its check has passed.)
    assert!(src.contains("tile[t] = input"), "in:\n{src}");
    assert!(src.contains("v = tile"), "in:\n{src}");
    assert!(
        !src.contains("input[i].v[") && !src.contains("tile[r].v["),
        "a lane copied on its own in:\n{src}"
    );
}
