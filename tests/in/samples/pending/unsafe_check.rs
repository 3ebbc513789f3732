//! Not compiled by anything: how the as-written versions the proof rejects were checked:
//! `reduce1` (P1) and `bitonicSortShared` with its last merge from `arrayLength / 2` (P4, with
//! `Comparator` taking the arrays, as compiled). Each has the accesses the proof rejects put in
//! `unsafe { }` (which the ports do not do), and runs on the simulator with its race detector
//! on (also with `CUPHASE_SIM_RACES=all CUPHASE_SIM_ORDER=reverse`): results equal the host
//! references and no race is found. To rerun, register it in `tests/kernels.rs` and run
//! `cargo test --test main verify_pending`.

use cuphase::prelude::*;

#[kernel]
pub fn v_reduce1(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    let sdata = shared_slice::<f32>();
    let tid = thread_idx().x;
    let i = block_idx().x * block_dim().x + thread_idx().x;
    sdata[tid] = if i < n { g_idata[i] } else { 0.0 };
    sync_block_threads();
    let mut s = 1u32;
    while s < block_dim().x {
        let index = 2 * s * tid;
        if index < block_dim().x {
            unsafe {
                sdata[index] += sdata[index + s];
            }
        }
        sync_block_threads();
        s *= 2;
    }
    if tid == 0 {
        g_odata[block_idx().x] = sdata[0];
    }
}

#[device(trailing_sync = false)]
fn v_comparator(s_key: &mut [u32; 1024], s_val: &mut [u32; 1024], a: u32, b: u32, dir: u32) {
    let mut t: u32;
    unsafe {
        if (s_key[a] > s_key[b]) as u32 == dir {
            t = s_key[a];
            s_key[a] = s_key[b];
            s_key[b] = t;
            t = s_val[a];
            s_val[a] = s_val[b];
            s_val[b] = t;
        }
    }
}

#[kernel(block = 512)]
pub fn v_bitonic(
    d_dst_key: &mut [u32],
    d_dst_val: &mut [u32],
    d_src_key: &[u32],
    d_src_val: &[u32],
    array_length: u32,
    dir: u32,
) {
    let s_key = shared::<[u32; 1024]>();
    let s_val = shared::<[u32; 1024]>();
    let base = block_idx().x * 1024 + thread_idx().x;
    s_key[thread_idx().x] = d_src_key[base];
    s_val[thread_idx().x] = d_src_val[base];
    s_key[thread_idx().x + 512] = d_src_key[base + 512];
    s_val[thread_idx().x + 512] = d_src_val[base + 512];
    let mut size = 2u32;
    while size < array_length {
        let ddd = dir ^ ((thread_idx().x & (size / 2)) != 0) as u32;
        let mut stride = size / 2;
        while stride > 0 {
            sync_block_threads();
            let pos = 2 * thread_idx().x - (thread_idx().x & (stride - 1));
            v_comparator(s_key, s_val, pos, pos + stride, ddd);
            stride >>= 1;
        }
        size <<= 1;
    }
    {
        let mut stride = array_length / 2;
        while stride > 0 {
            sync_block_threads();
            let pos = 2 * thread_idx().x - (thread_idx().x & (stride - 1));
            v_comparator(s_key, s_val, pos, pos + stride, dir);
            stride >>= 1;
        }
    }
    sync_block_threads();
    d_dst_key[base] = s_key[thread_idx().x];
    d_dst_val[base] = s_val[thread_idx().x];
    d_dst_key[base + 512] = s_key[thread_idx().x + 512];
    d_dst_val[base + 512] = s_val[thread_idx().x + 512];
}

#[test]
fn verify_pending_on_the_simulator() {
    let dev = Device::cpu().unwrap();
    let n: usize = 256 * 5 - 17;
    let input: Vec<f32> = (0..n).map(|i| (i % 7) as f32 - 2.0).collect();
    let g = dev.upload(&input).unwrap();
    for threads in [256u32, 64, 32] {
        let blocks = n.div_ceil(threads as usize);
        let want: Vec<f32> = input
            .chunks(threads as usize)
            .map(|c| c.iter().sum())
            .collect();
        let l = Launch::new(blocks as u32, threads).shared_bytes(threads * 4);
        let mut o = dev.zeros::<f32>(blocks).unwrap();
        v_reduce1.launch(&dev, l, &g, &mut o, n as u32).unwrap();
        assert_eq!(o.to_vec().unwrap(), want, "reduce1 {threads}");
    }
    for (len, dir) in [(1024u32, 1u32), (64, 0), (2, 1)] {
        let blocks = 2usize;
        let keys: Vec<u32> = (0..1024 * blocks as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 20)
            .collect();
        let vals: Vec<u32> = (0..1024 * blocks as u32).collect();
        let (k, v) = (dev.upload(&keys).unwrap(), dev.upload(&vals).unwrap());
        let mut ok = dev.zeros::<u32>(keys.len()).unwrap();
        let mut ov = dev.zeros::<u32>(keys.len()).unwrap();
        v_bitonic
            .launch(
                &dev,
                Launch::new(blocks as u32, 512),
                &mut ok,
                &mut ov,
                &k,
                &v,
                len,
                dir,
            )
            .unwrap();
        let (gk, gv) = (ok.to_vec().unwrap(), ov.to_vec().unwrap());
        for (c, (ck, cv)) in gk
            .chunks(len as usize)
            .zip(gv.chunks(len as usize))
            .enumerate()
        {
            let mut want: Vec<u32> = keys[c * len as usize..(c + 1) * len as usize].to_vec();
            want.sort();
            if dir == 0 {
                want.reverse();
            }
            assert_eq!(ck, &want[..], "bitonic keys len {len} dir {dir} chunk {c}");
            for (kk, vv) in ck.iter().zip(cv) {
                assert_eq!(keys[*vv as usize], *kk);
            }
        }
    }
}
