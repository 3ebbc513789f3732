use cuphase::prelude::*;

#[kernel]
fn scale(out: &mut [f32], k: f32) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = out[i] * k;
    }
}

fn main() -> Result<(), Error> {
    let dev = Device::cpu()?;
    let mut out = dev.zeros::<f64>(16)?;
    scale.launch(&dev, Launch::new(1, 16), &mut out, 2.0)?;
    Ok(())
}
