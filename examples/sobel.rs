//! A Sobel edge filter on a generated 1024 x 768 grayscale image, written out as PNG files (the
//! input and the edges) in the system's temporary directory.
//!
//! Each block of 16 x 16 threads loads its tile of the image with a one-pixel border into
//! shared memory (edges clamped), waits at a barrier, and every thread computes the gradient
//! magnitude of its pixel from the tile.
//!
//! Run: `cargo run --release --example sobel` (prints where the PNGs are).

use cuphase::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

/// The tile's side: the block's 16 pixels and a border of one on each side.
const TILE: u32 = 18;

/// `edges[y * width + x]` = the Sobel gradient magnitude at pixel (x, y) of `image` (row-major,
/// `width` columns), with the image's edge pixels repeated past its border. Launch with blocks
/// of 16 x 16 threads covering the image.
#[kernel(block = (16, 16))]
pub fn sobel(edges: &mut [f32], image: &[f32], width: u32, height: u32) {
    let tile = shared::<[f32; 324]>();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let x0 = block_idx().x * 16;
    let y0 = block_idx().y * 16;
    // 324 tile pixels (row-major, 18 a row) loaded by 256 threads: thread `l` the pixels `l`
    // and `l + 256`.
    let mut k = ty * 16 + tx;
    while k < TILE * TILE {
        let gx = (x0 + k % TILE).max(1).min(width) - 1;
        let gy = (y0 + k / TILE).max(1).min(height) - 1;
        tile[k] = image[gy * width + gx];
        k += 256;
    }
    sync_block_threads();
    let x = x0 + tx;
    let y = y0 + ty;
    if x < width && y < height {
        let p = |dr: u32, dc: u32| tile[(ty + dr) * TILE + tx + dc];
        let gx = (p(0, 2) + 2.0 * p(1, 2) + p(2, 2)) - (p(0, 0) + 2.0 * p(1, 0) + p(2, 0));
        let gy = (p(2, 0) + 2.0 * p(2, 1) + p(2, 2)) - (p(0, 0) + 2.0 * p(0, 1) + p(0, 2));
        edges[y * width + x] = (gx * gx + gy * gy).sqrt();
    }
}

/// The test image: rings, a bright square and a diagonal ramp, values in [0, 1].
fn generate(width: usize, height: usize) -> Vec<f32> {
    let mut img = vec![0.0f32; width * height];
    for y in 0..height {
        for x in 0..width {
            let (fx, fy) = (
                x as f32 - width as f32 * 0.35,
                y as f32 - height as f32 * 0.5,
            );
            let ring = ((fx * fx + fy * fy).sqrt() / 40.0) as u32 % 2;
            let square =
                (x > width * 6 / 10 && x < width * 9 / 10 && y > height / 5 && y < height / 2)
                    as u32;
            let ramp = (x + y) as f32 / (width + height) as f32;
            img[y * width + x] = (0.35 * ring as f32 + 0.4 * square as f32 + 0.25 * ramp).min(1.0);
        }
    }
    img
}

/// The kernel's computation in plain Rust, in the same order (so the results are equal).
fn sobel_host(image: &[f32], width: usize, height: usize) -> Vec<f32> {
    let at = |x: isize, y: isize| {
        let x = x.clamp(0, width as isize - 1) as usize;
        let y = y.clamp(0, height as isize - 1) as usize;
        image[y * width + x]
    };
    let mut out = vec![0.0f32; width * height];
    for y in 0..height as isize {
        for x in 0..width as isize {
            let p = |dr: isize, dc: isize| at(x + dc - 1, y + dr - 1);
            let gx = (p(0, 2) + 2.0 * p(1, 2) + p(2, 2)) - (p(0, 0) + 2.0 * p(1, 0) + p(2, 0));
            let gy = (p(2, 0) + 2.0 * p(2, 1) + p(2, 2)) - (p(0, 0) + 2.0 * p(0, 1) + p(0, 2));
            out[y as usize * width + x as usize] = (gx * gx + gy * gy).sqrt();
        }
    }
    out
}

/// Writes `pixels` (scaled so that `max` is white) as an 8-bit grayscale PNG.
fn write_png(
    path: &std::path::Path,
    pixels: &[f32],
    width: usize,
    height: usize,
    max: f32,
) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width as u32, height as u32);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let bytes: Vec<u8> = pixels
        .iter()
        .map(|v| ((v / max).clamp(0.0, 1.0) * 255.0).round() as u8)
        .collect();
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(&bytes).map_err(|e| e.to_string())
}

fn run() -> Result<bool, Box<dyn std::error::Error>> {
    let dev = Device::default()?;
    let (width, height) = (1024usize, 768usize);
    let host = generate(width, height);
    let image = dev.upload(&host)?;
    let mut edges = dev.upload(&vec![f32::NAN; width * height])?;
    let launch = Launch::new(
        (width.div_ceil(16) as u32, height.div_ceil(16) as u32),
        (16, 16),
    );
    let t0 = Instant::now();
    sobel.launch(
        &dev,
        launch,
        &mut edges,
        &image,
        width as u32,
        height as u32,
    )?;
    let got = edges.to_vec()?;
    let elapsed = t0.elapsed();
    let want = sobel_host(&host, width, height);
    let ok = got == want;
    let dir = std::env::temp_dir();
    let (input_png, edges_png) = (
        dir.join("cuphase-sobel-input.png"),
        dir.join("cuphase-sobel-edges.png"),
    );
    let max = got.iter().copied().fold(0.0f32, f32::max);
    write_png(&input_png, &host, width, height, 1.0)?;
    write_png(&edges_png, &got, width, height, max)?;
    println!(
        "sobel: {width} x {height} image on {} in {:.2} ms (first launch{}): {}; wrote {} and {}",
        dev.name(),
        elapsed.as_secs_f64() * 1e3,
        if dev.is_cuda() {
            ", with NVRTC compilation"
        } else {
            ""
        },
        if ok {
            "correct (equal to the host's filter)"
        } else {
            "WRONG"
        },
        input_png.display(),
        edges_png.display()
    );
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("sobel: {e}");
            ExitCode::FAILURE
        }
    }
}
