//! The on-disk cache of compiled kernels (README, "The CUDA back end").
//!
//! An entry is keyed by a SHA-256 of what decides the kernel: the CUDA C, the options that do
//! not depend on NVRTC, the target architecture and cuphase's version. NVRTC's version is
//! recorded in the entry but is not part of the key, so that a hit needs no NVRTC at all:
//! loading the NVRTC library costs more than 10 ms, the whole of a warm first launch
//! otherwise. An entry made by another NVRTC is therefore used as it is (a CUBIN for this
//! architecture from any NVRTC runs the same CUDA C); to recompile after changing NVRTC, clear
//! the directory or set `CUPHASE_CACHE=off`. The directory is
//! `CUPHASE_CACHE_DIR`, else the platform cache directory's `cuphase`, created private to the
//! user; `CUPHASE_CACHE=off` disables the cache. Entries are written to a temporary file and
//! renamed into place, so a reader never sees half an entry and concurrent writers of one key
//! just replace each other's identical bytes. An entry carries its key and the SHA-256 of its
//! payload; anything that does not check out (truncated, corrupt, foreign, another format) is
//! ignored and recompiled, never trusted.
//!
//! Takes the inputs of a compile (to make a [`key`]) and an [`Entry`]. Gives [`dir`], [`key`],
//! [`load`] and [`store`]. Guarantees: a loaded entry is byte for byte what was stored for that
//! key; a failure to read or write is `None` or an `Err` for the caller, which goes on without
//! the cache.

use sha2::{Digest, Sha256};
use std::io::Write as _;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"CUPHASE2";

/// What a cache entry holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The compiled image.
    pub image: Vec<u8>,
    /// Whether the image is PTX (else a CUBIN).
    pub is_ptx: bool,
    /// The NVRTC target option it was compiled with (`--gpu-architecture=sm_90`).
    pub target: String,
    /// The version of the NVRTC that made it.
    pub nvrtc: (i32, i32),
}

/// The key of an entry: hex SHA-256 of the inputs. `options` are the NVRTC options that do not
/// depend on NVRTC itself (not the target, which NVRTC's supported architectures decide).
pub fn key(source: &str, options: &[String], arch: u32) -> String {
    let mut h = Sha256::new();
    for part in [
        source.as_bytes(),
        options.join("\u{1f}").as_bytes(),
        format!("sm_{arch}").as_bytes(),
        concat!("cuphase ", env!("CARGO_PKG_VERSION")).as_bytes(),
    ] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The cache directory, or `None` when the cache is off or there is no place for it.
pub fn dir() -> Option<PathBuf> {
    if std::env::var("CUPHASE_CACHE").is_ok_and(|v| v == "off" || v == "0") {
        return None;
    }
    match std::env::var_os("CUPHASE_CACHE_DIR") {
        Some(d) if !d.is_empty() => Some(PathBuf::from(d)),
        _ => dirs::cache_dir().map(|d| d.join("cuphase")),
    }
}

/// Reads and verifies the entry for `key` in `dir`. `None` when absent or not trustworthy.
pub fn load(dir: &Path, key: &str) -> Option<Entry> {
    let bytes = std::fs::read(dir.join(format!("{key}.bin"))).ok()?;
    let entry = parse(&bytes, key);
    match &entry {
        Some(_) => tracing::debug!(key, "cuphase cache hit"),
        None => tracing::debug!(key, "cuphase cache entry rejected (corrupt or foreign)"),
    }
    entry
}

/// Layout: magic, key (64 hex bytes), payload length (u64 LE), payload SHA-256 (32 bytes),
/// payload. The payload: kind (1 byte: 0 cubin, 1 ptx), NVRTC's major and minor version (i32
/// LE each), the target option's length (u16 LE) and bytes, the image.
fn parse(bytes: &[u8], key: &str) -> Option<Entry> {
    let rest = bytes.strip_prefix(MAGIC.as_slice())?;
    let (k, rest) = rest.split_at_checked(64)?;
    if k != key.as_bytes() {
        return None;
    }
    let (len, rest) = rest.split_at_checked(8)?;
    let len = u64::from_le_bytes(len.try_into().ok()?);
    let (digest, payload) = rest.split_at_checked(32)?;
    if payload.len() as u64 != len || Sha256::digest(payload).as_slice() != digest {
        return None;
    }
    let (&kind, rest) = payload.split_first()?;
    let (major, rest) = rest.split_at_checked(4)?;
    let (minor, rest) = rest.split_at_checked(4)?;
    let (tlen, rest) = rest.split_at_checked(2)?;
    let (target, image) =
        rest.split_at_checked(usize::from(u16::from_le_bytes(tlen.try_into().ok()?)))?;
    if kind > 1 {
        return None;
    }
    Some(Entry {
        image: image.to_vec(),
        is_ptx: kind == 1,
        target: String::from_utf8(target.to_vec()).ok()?,
        nvrtc: (
            i32::from_le_bytes(major.try_into().ok()?),
            i32::from_le_bytes(minor.try_into().ok()?),
        ),
    })
}

fn serialize(key: &str, entry: &Entry) -> Vec<u8> {
    let target = &entry.target.as_bytes()[..entry.target.len().min(usize::from(u16::MAX))];
    let mut payload = Vec::with_capacity(entry.image.len() + 16 + target.len());
    payload.push(u8::from(entry.is_ptx));
    payload.extend_from_slice(&entry.nvrtc.0.to_le_bytes());
    payload.extend_from_slice(&entry.nvrtc.1.to_le_bytes());
    payload.extend_from_slice(&(target.len() as u16).to_le_bytes());
    payload.extend_from_slice(target);
    payload.extend_from_slice(&entry.image);
    let mut out = Vec::with_capacity(payload.len() + 120);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&payload));
    out.extend_from_slice(&payload);
    out
}

/// Creates the cache directory, private to the user.
fn create_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

/// Writes the entry atomically (a temporary file, then a rename). Failures are reported to
/// the caller, which goes on without the cache.
pub fn store(dir: &Path, key: &str, entry: &Entry) -> std::io::Result<()> {
    create_dir(dir)?;
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{key}.{}.{n}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&serialize(key, entry))?;
        f.sync_all()?;
        std::fs::rename(&tmp, dir.join(format!("{key}.bin")))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    tracing::debug!(key, ok = result.is_ok(), "cuphase cache store");
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmpdir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("cuphase-cache-unit-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn entries_round_trip_and_bad_ones_are_rejected() {
        let d = tmpdir("roundtrip");
        let k = key("src", &["-a".into()], 90);
        let e = Entry {
            image: vec![1, 2, 3, 4, 5],
            is_ptx: false,
            target: "--gpu-architecture=sm_90".into(),
            nvrtc: (13, 0),
        };
        store(&d, &k, &e).unwrap();
        assert_eq!(load(&d, &k), Some(e.clone()));
        let path = d.join(format!("{k}.bin"));
        let good = std::fs::read(&path).unwrap();
        // Flipped payload byte, truncation, another key, another format: all rejected.
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        for bad in [
            flipped,
            good[..good.len() - 1].to_vec(),
            good[..20].to_vec(),
            b"garbage".to_vec(),
        ] {
            std::fs::write(&path, &bad).unwrap();
            assert_eq!(load(&d, &k), None);
        }
        let other = key("src2", &[], 90);
        std::fs::write(d.join(format!("{other}.bin")), &good).unwrap();
        assert_eq!(
            load(&d, &other),
            None,
            "an entry for another key is foreign"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&d).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "the cache directory is private");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn keys_change_with_every_input() {
        let base = key("s", &["-o".into()], 90);
        assert_ne!(base, key("t", &["-o".into()], 90));
        assert_ne!(base, key("s", &["-p".into()], 90));
        assert_ne!(base, key("s", &["-o".into()], 80));
        assert_eq!(base.len(), 64);
    }
}
