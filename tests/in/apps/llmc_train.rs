//! llm.c (github: karpathy/llm.c, `dev/cuda/`) kernels of the GPT-2 training step ported to
//! cuphase as their authors wrote them: GELU, the naive attention, cross-entropy and AdamW.
//! C's `int` arithmetic is `i32`, a row pointer (`inp + b * T * C3 + ...`) is the row's
//! offset, `expf`/`logf`/`tanhf`/`sqrtf`/`fma` are `f32::exp`/`ln`/`tanh`/`sqrt`/`mul_add`,
//! and C's `double` literals compute in `f64`.

use cuphase::prelude::*;

/// `gelu_forward.cu`, `gelu_forward_kernel1` (`floatX` = `float`): the tanh approximation of
/// GELU, one thread per element. `GELU_SCALING_FACTOR` is `sqrtf(2.0f / M_PI)`, a `double`
/// division (`M_PI` is a `double`) rounded to `float`.
#[kernel]
pub fn gelu_forward_kernel1(out: &mut [f32], inp: &[f32], n: i32) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    if i < n {
        let xi = inp[i as u32];
        let cube = 0.044715f32 * xi * xi * xi;
        let gelu_scaling_factor = ((2.0f32 as f64 / std::f64::consts::PI) as f32).sqrt();
        out[i as u32] = 0.5f32 * xi * (1.0f32 + (gelu_scaling_factor * (xi + cube)).tanh());
    }
}

/// `attention_forward.cu`, `attention_query_key_kernel1`: one thread per (b, h, t, t2), the
/// scaled dot product of query `t` and key `t2` of head `h`, `-INFINITY` above the diagonal.
#[kernel]
pub fn attention_query_key_kernel1(
    preatt: &mut [f32],
    inp: &[f32],
    b: i32,
    t: i32,
    c: i32,
    nh: i32,
) {
    let idx = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let total_threads = b * nh * t * t;

    if idx < total_threads {
        let t2 = idx % t;
        let t_ = (idx / t) % t;
        if t2 > t_ {
            // autoregressive mask
            preatt[idx as u32] = f32::NEG_INFINITY;
            return;
        }
        let h = (idx / (t * t)) % nh;
        let b_ = idx / (nh * t * t);

        let c3 = c * 3;
        let hs = c / nh; // head size
        let query_t = b_ * t * c3 + t_ * c3 + h * hs;
        let key_t2 = b_ * t * c3 + t2 * c3 + h * hs + c; // +C because it's key

        // (query_t) dot (key_t2)
        let mut val = 0.0f32;
        for i in 0..hs {
            val += inp[(query_t + i) as u32] * inp[(key_t2 + i) as u32];
        }
        val = (val as f64 * (1.0 / (hs as f32).sqrt() as f64)) as f32;

        preatt[idx as u32] = val;
    }
}

/// `attention_forward.cu`, `attention_softmax_kernel1`: one thread per (b, t, h), the causal
/// softmax of its row of `preatt`.
#[kernel]
pub fn attention_softmax_kernel1(att: &mut [f32], preatt: &[f32], b: i32, t: i32, nh: i32) {
    let idx = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let total_threads = b * t * nh;

    if idx < total_threads {
        let h = idx % nh;
        let t_ = (idx / nh) % t;
        let b_ = idx / (nh * t);

        let preatt_bth = b_ * nh * t * t + h * t * t + t_ * t;
        let att_bth = b_ * nh * t * t + h * t * t + t_ * t;

        // find maxval
        let mut maxval = -f32::MAX;
        for t2 in 0..=t_ {
            if preatt[(preatt_bth + t2) as u32] > maxval {
                maxval = preatt[(preatt_bth + t2) as u32];
            }
        }

        // calculate the exp and keep track of sum
        let mut expsum = 0.0f32;
        for t2 in 0..=t_ {
            let expv = (preatt[(preatt_bth + t2) as u32] - maxval).exp();
            expsum += expv;
            att[(att_bth + t2) as u32] = expv;
        }
        let expsum_inv = if expsum == 0.0 { 0.0 } else { 1.0f32 / expsum };

        // normalize to get the softmax
        for t2 in 0..t {
            if t2 <= t_ {
                att[(att_bth + t2) as u32] *= expsum_inv;
            } else {
                // causal attention mask
                att[(att_bth + t2) as u32] = 0.0;
            }
        }
    }
}

/// `attention_forward.cu`, `attention_value_kernel1`: one thread per (b, t, h), the
/// attention-weighted sum of the values of head `h`.
#[kernel]
pub fn attention_value_kernel1(
    out: &mut [f32],
    att: &[f32],
    inp: &[f32],
    b: i32,
    t: i32,
    c: i32,
    nh: i32,
) {
    let idx = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let total_threads = b * t * nh;

    if idx < total_threads {
        let h = idx % nh;
        let t_ = (idx / nh) % t;
        let b_ = idx / (nh * t);

        let c3 = c * 3;
        let hs = c / nh; // head size

        let out_bth = b_ * t * c + t_ * c + h * hs;
        let att_bth = b_ * nh * t * t + h * t * t + t_ * t;

        for i in 0..hs {
            out[(out_bth + i) as u32] = 0.0;
        }
        for t2 in 0..=t_ {
            let value_t2 = b_ * t * c3 + t2 * c3 + h * hs + c * 2; // +C*2 because it's value
            let att_btht2 = att[(att_bth + t2) as u32];
            for i in 0..hs {
                out[(out_bth + i) as u32] += att_btht2 * inp[(value_t2 + i) as u32];
            }
        }
    }
}

/// `crossentropy_forward.cu`, `crossentropy_forward_kernel1`: one thread per (b, t), minus the
/// log of the target's probability.
#[kernel]
pub fn crossentropy_forward_kernel1(
    losses: &mut [f32],
    probs: &[f32],
    targets: &[i32],
    b: i32,
    t: i32,
    v: i32,
) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    if i < b * t {
        let b_ = i / t;
        let t_ = i % t;
        let probs_bt = b_ * t * v + t_ * v;
        let ix = targets[(b_ * t + t_) as u32];
        losses[(b_ * t + t_) as u32] = -probs[(probs_bt + ix) as u32].ln();
    }
}

/// `crossentropy_softmax_backward.cu`, `crossentropy_softmax_backward_kernel1`: one thread per
/// (b, t, v), the gradient of the loss through the softmax, accumulated into `dlogits`.
#[kernel]
pub fn crossentropy_softmax_backward_kernel1(
    dlogits: &mut [f32],
    dlosses: &[f32],
    probs: &[f32],
    targets: &[i32],
    b: i32,
    t: i32,
    v: i32,
) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    if i < b * t * v {
        let b_ = i / (t * v);
        let t_ = (i / v) % t;
        let v_ = i % v;
        let dlogits_bt = b_ * t * v + t_ * v;
        let probs_bt = b_ * t * v + t_ * v;
        let dloss = dlosses[(b_ * t + t_) as u32];
        let ix = targets[(b_ * t + t_) as u32];
        let p = probs[(probs_bt + v_) as u32];
        let indicator = if v_ == ix { 1.0f32 } else { 0.0f32 };
        dlogits[(dlogits_bt + v_) as u32] += (p - indicator) * dloss;
    }
}

/// `adamw.cu`, `adamw_kernel1`: one thread per parameter, the AdamW update (the bias
/// corrections come from the host).
#[kernel]
pub fn adamw_kernel1(
    params_memory: &mut [f32],
    grads_memory: &[f32],
    m_memory: &mut [f32],
    v_memory: &mut [f32],
    num_parameters: i64,
    learning_rate: f32,
    beta1: f32,
    beta2: f32,
    beta1_correction: f32,
    beta2_correction: f32,
    eps: f32,
    weight_decay: f32,
) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    if i as i64 >= num_parameters {
        return; // guard
    }
    let i = i as u32;
    // update the first moment (momentum)
    m_memory[i] = beta1 * m_memory[i] + (1.0f32 - beta1) * grads_memory[i];
    // update the second moment (RMSprop)
    v_memory[i] = beta2 * v_memory[i] + (1.0f32 - beta2) * grads_memory[i] * grads_memory[i];
    let m_hat = m_memory[i] / beta1_correction;
    let v_hat = v_memory[i] / beta2_correction;
    params_memory[i] -=
        learning_rate * (m_hat / (v_hat.sqrt() + eps) + weight_decay * params_memory[i]);
}

/// `adamw.cu`'s `lerp`: `start + weight * (end - start)` by two fused multiply-adds.
#[device]
fn lerp(start: f32, end: f32, weight: f32) -> f32 {
    weight.mul_add(end, (-weight).mul_add(start, start))
}

/// `adamw.cu`, `adamw_kernel2`: `adamw_kernel1` with the moments by `lerp`.
#[kernel]
pub fn adamw_kernel2(
    params_memory: &mut [f32],
    grads_memory: &[f32],
    m_memory: &mut [f32],
    v_memory: &mut [f32],
    num_parameters: i64,
    learning_rate: f32,
    beta1: f32,
    beta2: f32,
    beta1_correction: f32,
    beta2_correction: f32,
    eps: f32,
    weight_decay: f32,
) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    if i as i64 >= num_parameters {
        return; // guard
    }
    let i = i as u32;
    let grad = grads_memory[i];
    let mut m = m_memory[i];
    let mut v = v_memory[i];
    // update the first moment (momentum)
    m = lerp(grad, m, beta1);
    m_memory[i] = m;
    // update the second moment (RMSprop)
    v = lerp(grad * grad, v, beta2);
    v_memory[i] = v;
    m /= beta1_correction; // m_hat
    v /= beta2_correction; // v_hat
    params_memory[i] -= learning_rate * (m / (v.sqrt() + eps) + weight_decay * params_memory[i]);
}
