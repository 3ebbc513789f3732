//! The fused attention of `tests/in/attention.rs` against the host's softmax attention in
//! `f64`, on the simulator and on a GPU (skipped, saying why, without one).

use crate::kernels::attention::attention_forward;
use crate::kernels::wgmma::attention_wgmma;
use crate::mma::{randoms, through_bf16, to_bf16};
use cuphase::prelude::*;

/// `softmax(q kᵀ / 8) v` of each head, in `f64` from the inputs as the kernel sees them.
fn host_attention(q: &[f32], k: &[f32], v: &[f32], heads: usize, seq: usize) -> Vec<f64> {
    let mut o = vec![0.0; heads * seq * 64];
    for h in 0..heads {
        let at = |x: &[f32], r: usize, c: usize| f64::from(x[(h * seq + r) * 64 + c]);
        for i in 0..seq {
            let s: Vec<f64> = (0..seq)
                .map(|j| (0..64).map(|c| at(q, i, c) * at(k, j, c)).sum::<f64>() / 8.0)
                .collect();
            let mx = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let p: Vec<f64> = s.iter().map(|x| (x - mx).exp()).collect();
            let l: f64 = p.iter().sum();
            for c in 0..64 {
                o[(h * seq + i) * 64 + c] = (0..seq).map(|j| p[j] * at(v, j, c)).sum::<f64>() / l;
            }
        }
    }
    o
}

/// `attention_forward` (or, with `wgmma`, `attention_wgmma`) on `dev` for `heads` heads of
/// `seq` queries and keys, checked against the host. The kernel rounds the probabilities to bf16 before multiplying them by `v` (as
/// FlashAttention does), so each output is within 2^-7 of the largest `|v|`, which bounds it.
fn attention_on(dev: &Device, heads: usize, seq: usize, wgmma: bool) -> Result<(), Error> {
    let n = heads * seq * 64;
    // Scores of a few units: the softmax is neither flat nor one-hot.
    let scaled = |x: Vec<f32>| x.iter().map(|v| v * 3.0).collect::<Vec<f32>>();
    let q = through_bf16(&scaled(randoms(n, 40)));
    let k = through_bf16(&scaled(randoms(n, 41)));
    let v = through_bf16(&randoms(n, 42));
    let (qh, kh, vh) = (to_bf16(&q), to_bf16(&k), to_bf16(&v));
    let qb = dev.upload(qh.as_chunks::<8>().0)?;
    let kb = dev.upload(kh.as_chunks::<8>().0)?;
    let vb = dev.upload(vh.as_chunks::<8>().0)?;
    let grid = Dim3::new((seq / 128) as u32, heads as u32, 1);
    // `attention_wgmma` stores `o` in pairs (`[f32; 2]`, 8-byte stores).
    let (name, got) = if wgmma {
        let mut o = dev.upload(vec![f32::NAN; n].as_chunks::<2>().0)?;
        let launch = Launch::new(grid, Dim3::new(32, 4, 2));
        attention_wgmma.launch(dev, launch, &mut o, &qb, &kb, &vb, seq as u32)?;
        ("attention_wgmma", o.to_vec()?.concat())
    } else {
        let mut o = dev.upload(&vec![f32::NAN; n])?;
        let launch = Launch::new(grid, Dim3::new(32, 4, 1));
        attention_forward.launch(dev, launch, &mut o, &qb, &kb, &vb, seq as u32)?;
        ("attention_forward", o.to_vec()?)
    };
    let want = host_attention(&q, &k, &v, heads, seq);
    let tol = v.iter().fold(0.0f64, |m, x| m.max(f64::from(x.abs()))) / 128.0;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            (f64::from(*g) - w).abs() <= tol,
            "{name} {heads}x{seq} on {}: element {i}: got {g}, want {w} (tolerance {tol})",
            dev.name()
        );
    }
    Ok(())
}

/// Two tiles of keys (both stages, none refilled), four and six (the stages refilled), over
/// two heads.
#[test]
fn fused_attention_is_the_softmax_attention() {
    let dev = Device::cpu().unwrap();
    for seq in [128, 256, 384] {
        attention_on(&dev, 2, seq, false).unwrap();
    }
}

/// The same of `attention_wgmma`: two tiles of keys (the prologue's), four and six (the four
/// stages wrap; `p v` left in flight past each step's barrier).
#[test]
fn warpgroup_attention_is_the_softmax_attention() {
    let dev = Device::cpu().unwrap();
    for seq in [128, 256, 384] {
        attention_on(&dev, 2, seq, true).unwrap();
    }
}

/// Tier 3: the same on the hardware, with more keys.
#[test]
fn on_the_gpu_fused_attention_is_the_softmax_attention() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("on_the_gpu_fused_attention_is_the_softmax_attention: skipped: no GPU ({e})");
            return;
        }
    };
    attention_on(&gpu, 3, 640, false).unwrap();
    match attention_on(&gpu, 3, 640, true) {
        Err(Error::InvalidLaunch { reason, .. }) if reason.contains("only sm_90") => {
            skip!("on_the_gpu_fused_attention_is_the_softmax_attention: attention_wgmma skipped: not an sm_90 GPU ({reason})");
        }
        other => other.unwrap(),
    }
    println!(
        "attention: attention_forward and attention_wgmma agree with the host on {}",
        gpu.name()
    );
}
