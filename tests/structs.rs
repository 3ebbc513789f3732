//! User structs in kernels (issue 12 §1): `#[derive(DeviceStruct)]` structs as buffer
//! elements, struct variables, literals, nested structs, whole copies and field writes. The
//! cases join `cases::all()`, so the GPU is compared with the simulator bit for bit (and the
//! struct's layout on the GPU is asserted equal to Rust's, by the CUDA C itself); the tests
//! here check the simulator against host references and its race detection per field.

use crate::cases::Case;
use cuphase::prelude::*;

/// Two floats.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceStruct)]
pub struct Vec2 {
    pub x: f32,
    pub y: f32,
}

/// Methods of `Vec2`, which kernels of this file call as helpers (and the host, too).
#[device]
impl Vec2 {
    /// The vector `(x, y)`.
    pub fn new(x: f32, y: f32) -> Self {
        Vec2 { x, y }
    }
    /// The dot product.
    pub fn dot(self, o: Vec2) -> f32 {
        self.x * o.x + self.y * o.y
    }
    /// The vector times `k`, through another method.
    pub fn scaled(&self, k: f32) -> Vec2 {
        Self::new(self.x * k, self.y * k)
    }
    /// Moves by `d` in place: the caller's variable changes.
    pub fn shift(&mut self, d: Vec2) {
        self.x += d.x;
        self.y += d.y;
    }
    /// The squared length, an early `return` for the zero vector.
    pub fn length2(self) -> f32 {
        if self.x == 0.0 && self.y == 0.0 {
            return 0.0;
        }
        self.dot(self)
    }
}

/// A particle: nested structs and fields of several types.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceStruct)]
pub struct Particle {
    pub pos: Vec2,
    pub vel: Vec2,
    pub mass: f32,
    pub id: u32,
}

/// Fields whose C layout has padding: 1 + 7 + 8 + 2 (+ 6) bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceStruct)]
pub struct Padded {
    pub tag: u8,
    pub value: f64,
    pub count: u16,
}

/// Two counters of one element, written by different threads.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceStruct)]
pub struct Pair {
    pub a: u32,
    pub b: u32,
}

/// One explicit Euler step of each particle under gravity, with a floor at `y = 0`; the
/// particle is read whole, changed field by field and written back whole.
#[kernel]
pub fn particles_step(ps: &mut [Particle], dt: f32) {
    let i = global_idx().x as usize;
    if i < ps.len() {
        let mut p = ps[i];
        p.vel.y -= 9.81 * dt;
        let moved = Vec2 {
            x: p.pos.x + p.vel.x * dt,
            y: p.pos.y + p.vel.y * dt,
        };
        if moved.y < 0.0 {
            p.pos = Vec2 { x: moved.x, y: 0.0 };
            p.vel.y = -p.vel.y * 0.5;
        } else {
            p.pos = moved;
        }
        p.id += 1;
        ps[i] = p;
    }
}

/// A particle's kinetic energy: a struct parameter of a helper.
#[device]
fn kinetic(p: Particle) -> f32 {
    let v = p.vel;
    0.5 * p.mass * (v.x * v.x + v.y * v.y)
}

/// A helper changing its own copy (`mut`): the caller's struct stays as it was.
#[device]
fn with_next_id(mut p: Particle) -> u32 {
    p.id += 1000;
    p.id
}

/// A point rotated a quarter turn and scaled: a helper returning a struct, with an early
/// `return` of a literal.
#[device]
fn turned(p: Vec2, k: f32) -> Vec2 {
    if k == 0.0 {
        return Vec2 { x: 0.0, y: 0.0 };
    }
    let q = Vec2 {
        x: -p.y * k,
        y: p.x * k,
    };
    q
}

/// Each particle's position turned by `k` and its velocity turned twice (a helper's struct
/// result passed to a helper).
#[kernel]
pub fn particles_turn(ps: &mut [Particle], k: f32) {
    let i = global_idx().x as usize;
    if i < ps.len() {
        ps[i].pos = turned(ps[i].pos, k);
        let v = turned(turned(ps[i].vel, 1.0), k);
        ps[i].vel = v;
    }
}

/// The kinetic energy of each particle, from another buffer's structs (read-only), through
/// helpers that take a particle by value.
#[kernel]
pub fn particles_energy(out: &mut [f32], ids: &mut [u32], ps: &[Particle]) {
    let i = global_idx().x as usize;
    if i < ps.len() {
        let p = ps[i];
        out[i] = kinetic(p);
        ids[i] = with_next_id(p) + p.id;
    }
}

/// Padded fields of three widths; a struct literal written whole, fields swapped through a
/// copy.
#[kernel]
pub fn padded_mix(out: &mut [Padded], input: &[Padded]) {
    let i = global_idx().x as usize;
    if i < input.len() {
        let q = input[i];
        let mut r = Padded {
            count: q.count.wrapping_mul(3),
            value: q.value * 2.0 + q.tag as f64,
            tag: q.tag ^ 0x5a,
        };
        if q.count % 2 == 0 {
            r = Padded {
                tag: r.count as u8,
                value: -r.value,
                count: r.tag as u16,
            };
        }
        out[i] = r;
    }
}

/// Threads `2k` and `2k + 1` write fields `a` and `b` of element `k`: no race, as fields are
/// parts of an element.
#[kernel]
pub fn pair_fields(out: &mut [Pair]) {
    let t = global_idx().x as usize;
    let k = t / 2;
    if k < out.len() {
        if t % 2 == 0 {
            out[k].a = t as u32 * 10;
        } else {
            out[k].b = t as u32 * 10 + 1;
        }
    }
}

/// Fields through an index the compiler cannot follow: the simulator checks each field.
#[kernel]
pub fn pair_scatter(out: &mut [Pair], slot: &[u32]) {
    let t = global_idx().x as usize;
    if t < slot.len() {
        let k = slot[t] as usize;
        if t % 2 == 0 {
            out[k].a += 1;
        } else {
            out[k].b += 1;
        }
    }
}

/// A block's running statistics, combined in shared memory.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceStruct)]
pub struct Stats {
    pub sum: f32,
    pub max: f32,
    pub count: u32,
}

/// A tree reduction over a shared array of structs: each step reads two elements whole and
/// writes one whole.
#[kernel(block = (128, 1, 1))]
pub fn block_stats(out: &mut [Stats], xs: &[f32]) {
    let tile = shared::<[Stats; 128]>();
    let t = thread_idx().x as usize;
    let i = global_idx().x as usize;
    let inside = i < xs.len();
    let x = if inside { xs[i] } else { 0.0 };
    tile[t] = Stats {
        sum: x,
        max: if inside { x } else { f32::NEG_INFINITY },
        count: inside as u32,
    };
    sync_block_threads();
    let mut s = 64;
    while s > 0 {
        if t < s {
            let a = tile[t];
            let b = tile[t + s];
            tile[t] = Stats {
                sum: a.sum + b.sum,
                max: a.max.max(b.max),
                count: a.count + b.count,
            };
        }
        sync_block_threads();
        s /= 2;
    }
    if t == 0 {
        out[block_idx().x as usize] = tile[0];
    }
}

/// A 16 x 16 tile transpose of points through a two-dimensional shared array of structs,
/// swapping each point's coordinates on the way.
#[kernel(block = (16, 16, 1))]
pub fn transpose_points(out: &mut [Vec2], inp: &[Vec2], n: u32) {
    let tile = shared::<[[Vec2; 16]; 16]>();
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    let (x, y) = (block_idx().x * 16 + tx, block_idx().y * 16 + ty);
    if x < n && y < n {
        let p = inp[(y * n + x) as usize];
        tile[ty as usize][tx as usize] = Vec2 { x: p.y, y: p.x };
    }
    sync_block_threads();
    let (ox, oy) = (block_idx().y * 16 + tx, block_idx().x * 16 + ty);
    if ox < n && oy < n {
        out[(oy * n + ox) as usize] = tile[tx as usize][ty as usize];
    }
}

/// Field names that are C words, and one ending in `_`: the CUDA C renames them.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceStruct)]
pub struct Words {
    pub float: f32,
    pub int: i32,
    pub float_: u32,
}

/// Reads and writes the fields named with C words.
#[kernel]
pub fn c_words(ws: &mut [Words]) {
    let i = global_idx().x as usize;
    if i < ws.len() {
        let w = ws[i];
        ws[i] = Words {
            float: w.float * 2.0,
            int: w.int - 1,
            float_: w.float_ ^ 0xff,
        };
    }
}

fn stats_input() -> Vec<f32> {
    (0..1000)
        .map(|i| ((i * 37) % 101) as f32 * 0.5 - 20.0)
        .collect()
}

fn points(n: u32) -> Vec<Vec2> {
    (0..n * n)
        .map(|i| Vec2 {
            x: i as f32,
            y: -(i as f32) * 0.5,
        })
        .collect()
}

fn particles() -> Vec<Particle> {
    (0..300u32)
        .map(|i| {
            let f = i as f32;
            Particle {
                pos: Vec2 {
                    x: f * 0.25,
                    y: (i % 7) as f32 * 0.01,
                },
                vel: Vec2 {
                    x: 1.0 - f * 0.003,
                    y: (i % 5) as f32 - 2.0,
                },
                mass: 1.0 + (i % 3) as f32,
                id: i * 10,
            }
        })
        .collect()
}

fn step_host(p: &mut Particle, dt: f32) {
    p.vel.y -= 9.81 * dt;
    let moved = Vec2 {
        x: p.pos.x + p.vel.x * dt,
        y: p.pos.y + p.vel.y * dt,
    };
    if moved.y < 0.0 {
        p.pos = Vec2 { x: moved.x, y: 0.0 };
        p.vel.y = -p.vel.y * 0.5;
    } else {
        p.pos = moved;
    }
    p.id += 1;
}

fn padded_input() -> Vec<Padded> {
    (0..200u32)
        .map(|i| Padded {
            tag: (i * 37) as u8,
            value: i as f64 * 1.5 - 77.0,
            count: (i * 911) as u16,
        })
        .collect()
}

fn padded_host(q: &Padded) -> Padded {
    let mut r = Padded {
        count: q.count.wrapping_mul(3),
        value: q.value * 2.0 + q.tag as f64,
        tag: q.tag ^ 0x5a,
    };
    if q.count.is_multiple_of(2) {
        r = Padded {
            tag: r.count as u8,
            value: -r.value,
            count: r.tag as u16,
        };
    }
    r
}

fn particle_bits(ps: &[Particle]) -> Vec<u64> {
    ps.iter()
        .flat_map(|p| {
            [p.pos.x, p.pos.y, p.vel.x, p.vel.y, p.mass]
                .map(|f| u64::from(f.to_bits()))
                .into_iter()
                .chain([u64::from(p.id)])
        })
        .collect()
}

fn padded_bits(ps: &[Padded]) -> Vec<u64> {
    ps.iter()
        .flat_map(|p| [u64::from(p.tag), p.value.to_bits(), u64::from(p.count)])
        .collect()
}

const DT: f32 = 0.125;

/// The cases: every struct kernel, with host references.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "particles_step",
            run: |dev| {
                let mut ps = dev.upload(&particles())?;
                for _ in 0..3 {
                    particles_step.launch(dev, Launch::cover(ps.len(), 64), &mut ps, DT)?;
                }
                particles_turn.launch(dev, Launch::cover(ps.len(), 64), &mut ps, 0.5)?;
                particles_turn.launch(dev, Launch::new(1, 64), &mut ps, 0.0)?;
                let mut e = dev.zeros::<f32>(ps.len())?;
                let mut ids = dev.zeros::<u32>(ps.len())?;
                particles_energy.launch(dev, Launch::cover(ps.len(), 64), &mut e, &mut ids, &ps)?;
                let mut v = particle_bits(&ps.to_vec()?);
                v.extend(e.to_vec()?.iter().map(|x| u64::from(x.to_bits())));
                v.extend(ids.to_vec()?.iter().map(|x| u64::from(*x)));
                Ok(v)
            },
            expected: || {
                let turn = |p: Vec2, k: f32| {
                    if k == 0.0 {
                        Vec2 { x: 0.0, y: 0.0 }
                    } else {
                        Vec2 {
                            x: -p.y * k,
                            y: p.x * k,
                        }
                    }
                };
                let mut ps = particles();
                for (i, p) in ps.iter_mut().enumerate() {
                    for _ in 0..3 {
                        step_host(p, DT);
                    }
                    p.pos = turn(p.pos, 0.5);
                    p.vel = turn(turn(p.vel, 1.0), 0.5);
                    if i < 64 {
                        p.pos = turn(p.pos, 0.0);
                        p.vel = turn(turn(p.vel, 1.0), 0.0);
                    }
                }
                let e: Vec<u64> = ps
                    .iter()
                    .map(|p| {
                        let v = p.vel;
                        u64::from((0.5 * p.mass * (v.x * v.x + v.y * v.y)).to_bits())
                    })
                    .collect();
                let mut v = particle_bits(&ps);
                v.extend(e);
                v.extend(ps.iter().map(|p| u64::from(2 * p.id + 1000)));
                v
            },
        },
        Case {
            name: "padded_mix",
            run: |dev| {
                let input = dev.upload(&padded_input())?;
                let mut out = dev.zeros::<Padded>(input.len())?;
                padded_mix.launch(dev, Launch::cover(input.len(), 32), &mut out, &input)?;
                Ok(padded_bits(&out.to_vec()?))
            },
            expected: || padded_bits(&padded_input().iter().map(padded_host).collect::<Vec<_>>()),
        },
        Case {
            name: "block_stats",
            run: |dev| {
                let xs = dev.upload(&stats_input())?;
                let blocks = xs.len().div_ceil(128);
                let mut out = dev.zeros::<Stats>(blocks)?;
                block_stats.launch(dev, Launch::cover(xs.len(), 128), &mut out, &xs)?;
                Ok(out
                    .to_vec()?
                    .iter()
                    .flat_map(|s| {
                        [
                            u64::from(s.sum.to_bits()),
                            u64::from(s.max.to_bits()),
                            u64::from(s.count),
                        ]
                    })
                    .collect())
            },
            expected: || {
                let xs = stats_input();
                xs.chunks(128)
                    .flat_map(|c| {
                        // The tree's order: pairs at distance 64, 32, .., 1.
                        let mut v: Vec<(f32, f32, u32)> = (0..128)
                            .map(|t| match c.get(t) {
                                Some(x) => (*x, *x, 1),
                                None => (0.0, f32::NEG_INFINITY, 0),
                            })
                            .collect();
                        let mut s = 64;
                        while s > 0 {
                            for t in 0..s {
                                let (a, b) = (v[t], v[t + s]);
                                v[t] = (a.0 + b.0, a.1.max(b.1), a.2 + b.2);
                            }
                            s /= 2;
                        }
                        [
                            u64::from(v[0].0.to_bits()),
                            u64::from(v[0].1.to_bits()),
                            u64::from(v[0].2),
                        ]
                    })
                    .collect()
            },
        },
        Case {
            name: "transpose_points",
            run: |dev| {
                let n = 40u32;
                let inp = dev.upload(&points(n))?;
                let mut out = dev.zeros::<Vec2>((n * n) as usize)?;
                let blocks = n.div_ceil(16);
                transpose_points.launch(
                    dev,
                    Launch::new((blocks, blocks), (16, 16)),
                    &mut out,
                    &inp,
                    n,
                )?;
                Ok(out
                    .to_vec()?
                    .iter()
                    .flat_map(|p| [u64::from(p.x.to_bits()), u64::from(p.y.to_bits())])
                    .collect())
            },
            expected: || {
                let n = 40usize;
                let p = points(n as u32);
                (0..n * n)
                    .flat_map(|i| {
                        let (r, c) = (i / n, i % n);
                        let q = p[c * n + r];
                        [u64::from(q.y.to_bits()), u64::from(q.x.to_bits())]
                    })
                    .collect()
            },
        },
        Case {
            name: "c_words",
            run: |dev| {
                let input: Vec<Words> = (0..50)
                    .map(|i| Words {
                        float: i as f32 * 0.5,
                        int: i * 3,
                        float_: i as u32 * 7,
                    })
                    .collect();
                let mut ws = dev.upload(&input)?;
                c_words.launch(dev, Launch::cover(ws.len(), 32), &mut ws)?;
                Ok(ws
                    .to_vec()?
                    .iter()
                    .flat_map(|w| {
                        [
                            u64::from(w.float.to_bits()),
                            w.int as u64,
                            u64::from(w.float_),
                        ]
                    })
                    .collect())
            },
            expected: || {
                (0..50)
                    .flat_map(|i| {
                        [
                            u64::from((i as f32 * 0.5 * 2.0).to_bits()),
                            (i * 3 - 1) as u64,
                            u64::from((i as u32 * 7) ^ 0xff),
                        ]
                    })
                    .collect()
            },
        },
        Case {
            name: "vec_methods",
            run: |dev| {
                let ps = dev.upload(&particles())?;
                let mut out = dev.zeros::<f32>(ps.len())?;
                vec_methods.launch(dev, Launch::cover(ps.len(), 64), &mut out, &ps)?;
                Ok(out
                    .to_vec()?
                    .iter()
                    .map(|x| u64::from(x.to_bits()))
                    .collect())
            },
            expected: || {
                particles()
                    .iter()
                    .map(|p| u64::from(vec_methods_host(p).to_bits()))
                    .collect()
            },
        },
        Case {
            name: "pair_fields",
            run: |dev| {
                let mut out = dev.zeros::<Pair>(100)?;
                pair_fields.launch(dev, Launch::cover(200, 64), &mut out)?;
                Ok(out
                    .to_vec()?
                    .iter()
                    .flat_map(|p| [u64::from(p.a), u64::from(p.b)])
                    .collect())
            },
            expected: || {
                (0..100u64)
                    .flat_map(|k| [2 * k * 10, (2 * k + 1) * 10 + 1])
                    .collect()
            },
        },
    ]
}

/// Struct methods: a method of a field (`p.vel.scaled(k)`), an associated function, a method
/// calling another.
#[kernel]
pub fn vec_methods(out: &mut [f32], ps: &[Particle]) {
    let i = global_idx().x as usize;
    if i < ps.len() {
        let p = ps[i];
        let mut v = p.vel.scaled(0.5);
        v.shift(p.pos);
        let w = Vec2::new(1.0, p.mass);
        out[i] = v.dot(p.pos) + w.length2() + ps[i].pos.length2();
    }
}

fn vec_methods_host(p: &Particle) -> f32 {
    let mut v = p.vel.scaled(0.5);
    v.shift(p.pos);
    let w = Vec2::new(1.0, p.mass);
    v.dot(p.pos) + w.length2() + p.pos.length2()
}

/// The CUDA C of every kernel here, for NVRTC.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (particles_step.name(), particles_step.cuda_source()),
        (particles_energy.name(), particles_energy.cuda_source()),
        (particles_turn.name(), particles_turn.cuda_source()),
        (padded_mix.name(), padded_mix.cuda_source()),
        (pair_fields.name(), pair_fields.cuda_source()),
        (pair_scatter.name(), pair_scatter.cuda_source()),
        (block_stats.name(), block_stats.cuda_source()),
        (c_words.name(), c_words.cuda_source()),
        (transpose_points.name(), transpose_points.cuda_source()),
        (vec_methods.name(), vec_methods.cuda_source()),
    ]
}

#[test]
fn struct_kernels_match_the_host_on_the_simulator() {
    let dev = Device::cpu().unwrap();
    for case in cases() {
        let got = (case.run)(&dev).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(got, (case.expected)(), "{}", case.name);
    }
}

#[test]
fn the_cuda_c_declares_the_structs_with_their_layout() {
    let src = particles_step.cuda_source();
    for needle in [
        "struct Vec2 {\n    float x;\n    float y;\n};",
        "struct Particle {\n    Vec2 pos;\n    Vec2 vel;\n    float mass;\n    unsigned int id;\n};",
        "static_assert(sizeof(Particle) == 24 && alignof(Particle) == 4",
        "Particle* __restrict__ ps",
        ".vel.y",
    ] {
        assert!(src.contains(needle), "missing {needle:?} in:\n{src}");
    }
    let words = c_words.cuda_source();
    assert!(
        words.contains("    float float_;\n    int int_;\n    unsigned int float__;"),
        "{words}"
    );
    let padded = padded_mix.cuda_source();
    assert!(
        padded.contains("static_assert(sizeof(Padded) == 24 && alignof(Padded) == 8"),
        "{padded}"
    );
}

/// Different fields of one element, through indices the compiler cannot follow, do not
/// race on the simulator; the same field does, and the error names it.
#[test]
fn the_simulator_tracks_races_per_field() {
    let dev = Device::cpu().unwrap();
    // Threads 2k and 2k+1 meet at element k, on different fields.
    let slot: Vec<u32> = (0..64).map(|t| t / 2).collect();
    let slot = dev.upload(&slot).unwrap();
    let mut out = dev.zeros::<Pair>(32).unwrap();
    pair_scatter
        .launch(&dev, Launch::new(1, 64), &mut out, &slot)
        .unwrap();
    assert!(out
        .to_vec()
        .unwrap()
        .iter()
        .all(|p| *p == Pair { a: 1, b: 1 }));
    // Threads 0 and 2 meet at element 0 on field `a`.
    let slot = dev.upload(&vec![0u32; 64]).unwrap();
    let err = pair_scatter
        .launch(&dev, Launch::new(1, 64), &mut out, &slot)
        .expect_err("threads 0 and 2 write out[0].a");
    match err {
        Error::DataRace { array, index, .. } => {
            assert_eq!((array, index), ("out.a", 0), "{err}")
        }
        other => panic!("expected a data race, got {other}"),
    }
}

#[test]
fn out_of_bounds_fields_name_the_field() {
    let dev = Device::cpu().unwrap();
    let slot = dev.upload(&[5u32]).unwrap();
    let mut out = dev.zeros::<Pair>(2).unwrap();
    let err = pair_scatter
        .launch(&dev, Launch::new(1, 1), &mut out, &slot)
        .expect_err("element 5 of 2");
    assert!(
        matches!(
            err,
            Error::OutOfBounds {
                index: 5,
                len: 2,
                ..
            }
        ),
        "{err}"
    );
}
