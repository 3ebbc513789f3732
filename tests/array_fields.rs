//! Arrays inside user structs (issue 12 §1: "structs of scalars, arrays and other such
//! structs"): array fields of scalars, of structs and of arrays, read and written through
//! constant and computed indices, in buffers, variables, literals and helpers. The cases join
//! `cases::all()`, so the GPU is compared with the simulator bit for bit; the tests here check
//! the simulator against host references, the bounds check of a computed index, and race
//! detection per element.

use crate::cases::Case;
use cuphase::prelude::*;

/// A point mass: array fields of two lengths, a scalar after them (C pads nothing here:
/// 12 + 12 + 4 + 4 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceStruct)]
pub struct Body {
    pub pos: [f32; 3],
    pub vel: [f32; 3],
    pub mass: f32,
    pub tags: [u16; 2],
}

/// Two floats, an element type of an array field.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceStruct)]
pub struct P2 {
    pub x: f32,
    pub y: f32,
}

/// An array of structs and a two-dimensional array, with a length from a constant.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceStruct)]
pub struct Poly {
    pub pts: [P2; CORNERS],
    pub m: [[u32; 2]; 2],
    pub n: u8,
}

/// The corners of a [`Poly`].
pub const CORNERS: usize = 3;

/// Counters that threads of one block share, one element each.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceStruct)]
pub struct Hits {
    pub h: [u32; 8],
}

const DT: f32 = 0.125;

/// One Euler step per body: a struct variable's array fields through a loop's index, an
/// element's through constants, a whole copy back.
#[kernel]
pub fn bodies_step(bs: &mut [Body], dt: f32) {
    let i = global_idx().x as usize;
    if i < bs.len() {
        let mut b = bs[i];
        for d in 0..3 {
            b.vel[d] -= 9.75 * dt * (d as f32 - 1.0);
            b.pos[d] += b.vel[d] * dt;
        }
        b.tags[0] = b.tags[1].wrapping_add(b.tags[0]);
        bs[i] = b;
        bs[i].mass *= 0.5;
        bs[i].pos[2] = bs[i].pos[0] + bs[i].pos[1];
    }
}

fn bodies_step_host(b: &mut Body, dt: f32) {
    for d in 0..3 {
        b.vel[d] -= 9.75 * dt * (d as f32 - 1.0);
        b.pos[d] += b.vel[d] * dt;
    }
    b.tags[0] = b.tags[1].wrapping_add(b.tags[0]);
    b.mass *= 0.5;
    b.pos[2] = b.pos[0] + b.pos[1];
}

/// The kinetic energy and the speed along axis `axis[i]`: computed indices into a slice's
/// element, a helper taking the struct, a whole array field copied and looped over.
#[kernel]
pub fn bodies_measure(out: &mut [f32], bs: &[Body], axis: &[u32]) {
    let i = global_idx().x as usize;
    if i < bs.len() {
        let k = axis[i] as usize;
        let b = bs[i];
        let v = b.vel;
        let mut e = 0.0f32;
        for x in v {
            e += x * x;
        }
        let mut p = 0.0f32;
        for x in b.pos.iter() {
            p += *x;
        }
        out[3 * i] = 0.5 * b.mass * e;
        out[3 * i + 1] = bs[i].vel[k] + speed_along(b, k);
        out[3 * i + 2] = p + b.pos.len() as f32;
    }
}

#[device]
fn speed_along(b: Body, k: usize) -> f32 {
    b.vel[k] * b.mass
}

/// Literals with array fields (of structs, of arrays, `[v; N]`), a computed index into an
/// array of structs, whole array-field assignments, fields of a helper's result and of a
/// literal.
#[kernel]
pub fn polys_build(out: &mut [Poly], xs: &[f32]) {
    let i = global_idx().x as usize;
    if i < out.len() {
        let x = xs[i];
        let k = i % CORNERS;
        let row = [x, 2.0 * x, 3.0 * x];
        let mut p = Poly {
            pts: [P2 { x, y: 0.0 }, P2 { x: 0.0, y: x }, P2 { x: -x, y: -x }],
            m: [[i as u32; 2], [1, 2]],
            n: CORNERS as u8,
        };
        p.pts[k].y += row[k];
        p.pts[k] = P2 {
            x: p.pts[k].y,
            y: p.pts[k].x,
        };
        p.m[k % 2][1 - k % 2] += 7;
        let saved = p.m;
        p.m = [[0; 2]; 2];
        p.m[1] = saved[0];
        out[i] = p;
        out[i].pts[CORNERS - 1] = corner(p, k);
        // Parts of values that are no variables: a helper's result, a literal.
        out[i].pts[0].y += corner(p, 0).x;
        out[i].n += Poly {
            pts: [P2 { x, y: 1.0 }; CORNERS],
            m: [[0; 2]; 2],
            n: 0,
        }
        .pts[1]
            .y as u8;
    }
}

#[device]
fn corner(p: Poly, k: usize) -> P2 {
    P2 {
        x: p.pts[k].x + p.m[1][0] as f32,
        y: p.pts[(k + 1) % CORNERS].y,
    }
}

fn polys_build_host(i: usize, x: f32) -> Poly {
    let k = i % CORNERS;
    let row = [x, 2.0 * x, 3.0 * x];
    let mut p = Poly {
        pts: [P2 { x, y: 0.0 }, P2 { x: 0.0, y: x }, P2 { x: -x, y: -x }],
        m: [[i as u32; 2], [1, 2]],
        n: CORNERS as u8,
    };
    p.pts[k].y += row[k];
    p.pts[k] = P2 {
        x: p.pts[k].y,
        y: p.pts[k].x,
    };
    p.m[k % 2][1 - k % 2] += 7;
    let saved = p.m;
    p.m = [[0; 2]; 2];
    p.m[1] = saved[0];
    let c = P2 {
        x: p.pts[k].x + p.m[1][0] as f32,
        y: p.pts[(k + 1) % CORNERS].y,
    };
    p.pts[CORNERS - 1] = c;
    let q = Poly { pts: p.pts, ..p };
    p.pts[0].y += q.pts[0].x + q.m[1][0] as f32;
    p.n += 1;
    p
}

/// Evaluation order through computed indices: a value that reads what the write changes, an
/// index that is a field the write changes, a value that changes the index (Rust evaluates
/// the value first).
#[kernel]
pub fn field_orders(out: &mut [Poly], ks: &[u32]) {
    let i = global_idx().x as usize;
    if i < out.len() && i < ks.len() {
        let k = ks[i] as usize % 2;
        let mut p = orders_start(i);
        p.pts[k] = P2 {
            x: p.pts[0].y,
            y: p.pts[0].x,
        };
        p.m[p.m[0][0] as usize] = [1, 7];
        let mut j = k;
        p.pts[j].x = {
            j += 1;
            10.0
        };
        p.n = (j + out[i].pts.len()) as u8;
        out[i] = p;
    }
}

#[device]
fn orders_start(i: usize) -> Poly {
    Poly {
        pts: [
            P2 { x: 1.0, y: 2.0 },
            P2 { x: 3.0, y: 4.0 },
            P2 {
                x: 5.0,
                y: i as f32,
            },
        ],
        m: [[(i % 2) as u32, 1], [1, 0]],
        n: 0,
    }
}

fn field_orders_host(i: usize, k: usize) -> Poly {
    let k = k % 2;
    let mut p = Poly {
        pts: [
            P2 { x: 1.0, y: 2.0 },
            P2 { x: 3.0, y: 4.0 },
            P2 {
                x: 5.0,
                y: i as f32,
            },
        ],
        m: [[(i % 2) as u32, 1], [1, 0]],
        n: 0,
    };
    p.pts[k] = P2 {
        x: p.pts[0].y,
        y: p.pts[0].x,
    };
    p.m[p.m[0][0] as usize] = [1, 7];
    let mut j = k;
    p.pts[j].x = {
        j += 1;
        10.0
    };
    p.n = (j + CORNERS) as u8;
    p
}

/// Thread `t` of each block counts into element `t % 8` of its block's counters: different
/// elements of one array field, which the compiler proves apart.
#[kernel]
pub fn hits_count(out: &mut [Hits], xs: &[u32]) {
    let t = thread_idx().x as usize;
    let b = block_idx().x as usize;
    if t < 8 && b < out.len() {
        out[b].h[t] = xs[b * 8 + t] * 2 + 1;
    }
}

/// Thread `t` writes element `slot[t]` of one field: a race on the simulator when two
/// threads pick one element (the compiler cannot follow `slot`), a bounds failure past 8.
#[kernel]
pub fn hits_scatter(out: &mut [Hits], slot: &[u32]) {
    let t = thread_idx().x as usize;
    if t < slot.len() {
        out[0].h[slot[t] as usize] += 1;
    }
}

fn bodies() -> Vec<Body> {
    (0..200u16)
        .map(|i| {
            let f = f32::from(i);
            Body {
                pos: [f * 0.5, -f, 1.0 + f * 0.25],
                vel: [1.0 - f * 0.125, f * 0.0625, -2.0],
                mass: 1.0 + f * 0.01,
                tags: [i, i.wrapping_mul(977)],
            }
        })
        .collect()
}

fn axes(n: usize) -> Vec<u32> {
    (0..n as u32).map(|i| (i * 7 + 1) % 3).collect()
}

fn xs(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i as f32) * 0.75 - 20.0).collect()
}

fn body_bits(bs: &[Body]) -> Vec<u64> {
    bs.iter()
        .flat_map(|b| {
            let mut v: Vec<u64> = b.pos.iter().map(|x| u64::from(x.to_bits())).collect();
            v.extend(b.vel.iter().map(|x| u64::from(x.to_bits())));
            v.push(u64::from(b.mass.to_bits()));
            v.extend(b.tags.iter().map(|t| u64::from(*t)));
            v
        })
        .collect()
}

fn poly_bits(ps: &[Poly]) -> Vec<u64> {
    ps.iter()
        .flat_map(|p| {
            let mut v: Vec<u64> = p
                .pts
                .iter()
                .flat_map(|q| [u64::from(q.x.to_bits()), u64::from(q.y.to_bits())])
                .collect();
            v.extend(p.m.iter().flatten().map(|x| u64::from(*x)));
            v.push(u64::from(p.n));
            v
        })
        .collect()
}

fn f32_bits(v: &[f32]) -> Vec<u64> {
    v.iter().map(|x| u64::from(x.to_bits())).collect()
}

pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "bodies_step",
            run: |dev| {
                let mut bs = dev.upload(&bodies())?;
                for _ in 0..3 {
                    bodies_step.launch(dev, Launch::cover(bs.len(), 64), &mut bs, DT)?;
                }
                let axis = dev.upload(&axes(bs.len()))?;
                let mut out = dev.zeros::<f32>(3 * bs.len())?;
                bodies_measure.launch(dev, Launch::cover(bs.len(), 64), &mut out, &bs, &axis)?;
                let mut v = body_bits(&bs.to_vec()?);
                v.extend(f32_bits(&out.to_vec()?));
                Ok(v)
            },
            expected: || {
                let mut bs = bodies();
                for b in &mut bs {
                    for _ in 0..3 {
                        bodies_step_host(b, DT);
                    }
                }
                let axis = axes(bs.len());
                let mut out = Vec::new();
                for (b, k) in bs.iter().zip(&axis) {
                    let k = *k as usize;
                    let e: f32 = b.vel.iter().fold(0.0, |e, x| e + x * x);
                    let p: f32 = b.pos.iter().fold(0.0, |p, x| p + x);
                    out.push(0.5 * b.mass * e);
                    out.push(b.vel[k] + b.vel[k] * b.mass);
                    out.push(p + 3.0);
                }
                let mut v = body_bits(&bs);
                v.extend(f32_bits(&out));
                v
            },
        },
        Case {
            name: "polys_build",
            run: |dev| {
                let x = dev.upload(&xs(300))?;
                let mut out = dev.zeros::<Poly>(300)?;
                polys_build.launch(dev, Launch::cover(300, 128), &mut out, &x)?;
                Ok(poly_bits(&out.to_vec()?))
            },
            expected: || {
                let ps: Vec<Poly> = xs(300)
                    .into_iter()
                    .enumerate()
                    .map(|(i, x)| polys_build_host(i, x))
                    .collect();
                poly_bits(&ps)
            },
        },
        Case {
            name: "field_orders",
            run: |dev| {
                let ks = dev.upload(&axes(100))?;
                let mut out = dev.zeros::<Poly>(100)?;
                field_orders.launch(dev, Launch::cover(100, 64), &mut out, &ks)?;
                Ok(poly_bits(&out.to_vec()?))
            },
            expected: || {
                let ps: Vec<Poly> = axes(100)
                    .iter()
                    .enumerate()
                    .map(|(i, k)| field_orders_host(i, *k as usize))
                    .collect();
                poly_bits(&ps)
            },
        },
        Case {
            name: "hits_count",
            run: |dev| {
                let x: Vec<u32> = (0..64).map(|i| i * 3).collect();
                let x = dev.upload(&x)?;
                let mut out = dev.zeros::<Hits>(8)?;
                hits_count.launch(dev, Launch::new(8, 32), &mut out, &x)?;
                Ok(out
                    .to_vec()?
                    .iter()
                    .flat_map(|h| h.h.map(u64::from))
                    .collect())
            },
            expected: || (0..64u64).map(|i| i * 3 * 2 + 1).collect(),
        },
    ]
}

/// The CUDA C of every kernel here, for NVRTC.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (bodies_step.name(), bodies_step.cuda_source()),
        (bodies_measure.name(), bodies_measure.cuda_source()),
        (polys_build.name(), polys_build.cuda_source()),
        (field_orders.name(), field_orders.cuda_source()),
        (hits_count.name(), hits_count.cuda_source()),
        (hits_scatter.name(), hits_scatter.cuda_source()),
    ]
}

#[test]
fn array_field_kernels_match_the_host_on_the_simulator() {
    let dev = Device::cpu().unwrap();
    for case in cases() {
        let got = (case.run)(&dev).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(got, (case.expected)(), "{}", case.name);
    }
}

#[test]
fn the_cuda_c_declares_array_fields_with_their_layout() {
    let src = polys_build.cuda_source();
    for needle in [
        "struct P2 {\n    float x;\n    float y;\n};",
        "struct Poly {\n    P2 pts[3];\n    unsigned int m[2][2];\n    unsigned char n;\n};",
        "static_assert(sizeof(Poly) == 44 && alignof(Poly) == 4",
    ] {
        assert!(src.contains(needle), "missing {needle:?} in:\n{src}");
    }
    assert_eq!(std::mem::size_of::<Poly>(), 44);
    let step = bodies_step.cuda_source();
    // The loop's index chooses among the variables of `b`'s elements.
    for needle in [
        "float b_pos_2 = bs[",
        "} else if (d == 1u) {\n#line 59 \"tests/array_fields.rs\"\n                b_vel_1 -= value;",
        "bs[i].pos[2] = b_pos_2;",
    ] {
        assert!(step.contains(needle), "missing {needle:?} in:\n{step}");
    }
}

/// A computed index past an array field's end is an out-of-bounds fault naming it; two
/// threads on one element of the field race, on the simulator, named by the element.
#[test]
fn computed_indices_are_bounds_checked_and_race_checked() {
    let dev = Device::cpu().unwrap();
    let mut out = dev.zeros::<Hits>(1).unwrap();
    let slot = dev.upload(&[0u32, 3, 7, 1]).unwrap();
    hits_scatter
        .launch(&dev, Launch::new(1, 4), &mut out, &slot)
        .unwrap();
    let h = out.to_vec().unwrap()[0].h;
    assert_eq!(h, [1, 1, 0, 1, 0, 0, 0, 1]);
    let slot = dev.upload(&[2u32, 8]).unwrap();
    let err = hits_scatter
        .launch(&dev, Launch::new(1, 2), &mut out, &slot)
        .expect_err("element 8 of 8");
    match err {
        Error::OutOfBounds {
            array, index, len, ..
        } => assert_eq!((array, index, len), ("out[0].h", 8, 8)),
        other => panic!("expected an out-of-bounds fault, got {other}"),
    }
    let slot = dev.upload(&[5u32, 5]).unwrap();
    let err = hits_scatter
        .launch(&dev, Launch::new(1, 2), &mut out, &slot)
        .expect_err("threads 0 and 1 both write out[0].h[5]");
    match err {
        Error::DataRace { array, index, .. } => {
            assert_eq!((array, index), ("out.h[5]", 0), "{err}")
        }
        other => panic!("expected a data race, got {other}"),
    }
}
