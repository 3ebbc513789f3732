//! Autotuning: among several launches that compute the same result (one kernel's instances
//! for candidate const parameters, say `sgemm::<64>` and `sgemm::<128>`), the fastest that
//! computes it correctly, per device and problem shape, remembered for the process and in the
//! disk cache.
//!
//! Takes the candidates as labelled closures over the caller's arguments, and a check of the
//! result. Gives a [`Tuned`]: the chosen candidate and what was measured. Guarantees: on a
//! CUDA device each candidate runs once and is checked (one that fails, or returns an error
//! such as a launch its device rejects, is out), then is timed with CUDA events (warm-up, the
//! median of repetitions); the choice is remembered by label, so a later call with the same
//! name, shape and device returns it without running anything, in this process or (through
//! `CUPHASE_CACHE_DIR`, as compiled kernels are) another. The simulator takes the first
//! candidate without running anything: its times say nothing of a GPU's.

use crate::device::Device;
use crate::error::Error;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// One candidate of [`Device::autotune`]: a label (`"BM=128"`, remembered as the choice) and
/// the launch, given the device and the arguments.
pub type Candidate<'a, A> = (&'a str, &'a dyn Fn(&Device, &mut A) -> Result<(), Error>);

/// What [`Device::autotune`] chose.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuned {
    /// The chosen candidate's index.
    pub index: usize,
    /// Its label.
    pub label: String,
    /// The median time of each candidate in milliseconds, `None` for one that failed its check
    /// or its launch. Empty when nothing was timed (a remembered choice, or the simulator).
    pub times_ms: Vec<Option<f64>>,
    /// Whether the choice was remembered rather than measured now.
    pub remembered: bool,
}

/// Warm-up runs and timed runs of each candidate.
const WARMUP: usize = 2;
const REPS: usize = 10;

impl Device {
    /// Picks the fastest correct candidate for the problem `shape` (`"4096x4096x4096"`) of
    /// the kernel family `name` on this device: on CUDA, each candidate runs on `args`, then
    /// `check(args)` must say its result is right, then it is timed (CUDA events, 2 warm-up
    /// runs, the median of 10). The choice is kept per device, name and shape, in this
    /// process and in the disk cache, by label. The simulator picks the first candidate and
    /// runs nothing. Run the chosen one with `candidates[tuned.index].1(&dev, &mut args)`.
    ///
    /// An error when there are no candidates, or when none passes its check.
    pub fn autotune<A>(
        &self,
        name: &str,
        shape: &str,
        args: &mut A,
        candidates: &[Candidate<'_, A>],
        check: impl Fn(&mut A) -> Result<bool, Error>,
    ) -> Result<Tuned, Error> {
        if candidates.is_empty() {
            return Err(no_candidate(name, "no candidates were given"));
        }
        let Some(stream) = self.cuda_stream().cloned() else {
            return Ok(Tuned {
                index: 0,
                label: candidates[0].0.to_string(),
                times_ms: Vec::new(),
                remembered: false,
            });
        };
        let key = tune_key(&self.name(), name, shape);
        if let Some(label) = remembered(&key) {
            if let Some(index) = candidates.iter().position(|(l, _)| *l == label) {
                return Ok(Tuned {
                    index,
                    label,
                    times_ms: Vec::new(),
                    remembered: true,
                });
            }
        }
        let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let driver = |e: cudarc::driver::DriverError| Error::Driver {
            context: format!("timing autotune candidates of `{name}`"),
            message: e.to_string(),
        };
        let mut times = Vec::with_capacity(candidates.len());
        for (label, run) in candidates {
            let measured = (|| -> Result<Option<f64>, Error> {
                run(self, args)?;
                self.synchronize()?;
                if !check(args)? {
                    tracing::info!(
                        kernel = name,
                        candidate = label,
                        "cuphase: autotune candidate computed a wrong result"
                    );
                    return Ok(None);
                }
                for _ in 0..WARMUP {
                    run(self, args)?;
                }
                let mut ms = Vec::with_capacity(REPS);
                for _ in 0..REPS {
                    let start = stream.record_event(timing).map_err(driver)?;
                    run(self, args)?;
                    let stop = stream.record_event(timing).map_err(driver)?;
                    stop.synchronize().map_err(driver)?;
                    ms.push(f64::from(start.elapsed_ms(&stop).map_err(driver)?));
                }
                self.synchronize()?;
                Ok(Some(median(&mut ms)))
            })();
            times.push(match measured {
                Ok(t) => t,
                Err(e) => {
                    tracing::info!(kernel = name, candidate = label, error = %e, "cuphase: autotune candidate failed");
                    None
                }
            });
        }
        let index = fastest(&times).ok_or_else(|| {
            no_candidate(
                name,
                "no candidate computed the right result on this device",
            )
        })?;
        let label = candidates[index].0.to_string();
        remember(&key, &label);
        Ok(Tuned {
            index,
            label,
            times_ms: times,
            remembered: false,
        })
    }
}

fn no_candidate(name: &str, reason: &str) -> Error {
    Error::InvalidLaunch {
        kernel: name.to_string(),
        reason: format!("autotune: {reason}"),
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The index of the smallest time, the first of equals; `None` when none was measured.
fn fastest(times: &[Option<f64>]) -> Option<usize> {
    times
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.map(|t| (i, t)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// The key of one tuning problem: the device, the kernel family and the shape.
fn tune_key(device: &str, name: &str, shape: &str) -> String {
    let mut h = Sha256::new();
    for part in [device, name, shape] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn memory() -> &'static Mutex<HashMap<String, String>> {
    static CHOICES: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    CHOICES.get_or_init(Mutex::default)
}

/// The choice for `key`, from this process or the disk cache.
fn remembered(key: &str) -> Option<String> {
    let known = memory()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(key)
        .cloned();
    known.or_else(|| crate::cache::dir().and_then(|d| load(&d, key)))
}

fn remember(key: &str, label: &str) {
    memory()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key.to_string(), label.to_string());
    if let Some(dir) = crate::cache::dir() {
        if let Err(e) = store(&dir, key, label) {
            tracing::warn!(dir = %dir.display(), error = %e, "cuphase: cannot write the autotune choice; going on without it");
        }
    }
}

fn path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("tune-{key}.txt"))
}

/// The remembered label: the file holds the key and the label on two lines; anything else
/// (a truncated or foreign file) is no choice.
fn load(dir: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(path(dir, key)).ok()?;
    let mut lines = text.lines();
    (lines.next()? == key).then_some(())?;
    let label = lines.next()?.to_string();
    lines.next().is_none().then_some(label)
}

/// Writes the choice atomically: a temporary file, then a rename.
fn store(dir: &Path, key: &str, label: &str) -> std::io::Result<()> {
    if label.contains('\n') {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".tune-{key}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        writeln!(f, "{key}\n{label}")?;
        f.sync_all()?;
        std::fs::rename(&tmp, path(dir, key))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fastest_measured_candidate_wins() {
        assert_eq!(fastest(&[Some(2.0), None, Some(1.5), Some(1.5)]), Some(2));
        assert_eq!(fastest(&[None, None]), None);
        assert_eq!(fastest(&[Some(0.1)]), Some(0));
    }

    #[test]
    fn choices_round_trip_through_the_disk_and_bad_files_are_no_choice() {
        let dir = std::env::temp_dir().join(format!("cuphase-tune-{}", std::process::id()));
        let key = tune_key("H200", "sgemm", "4096");
        assert_ne!(key, tune_key("H200", "sgemm", "2048"));
        assert_eq!(load(&dir, &key), None);
        store(&dir, &key, "BM=128").unwrap();
        assert_eq!(load(&dir, &key).as_deref(), Some("BM=128"));
        // A file of another key (renamed, corrupt) is ignored.
        std::fs::write(path(&dir, &key), "other\nBM=64\n").unwrap();
        assert_eq!(load(&dir, &key), None);
        std::fs::write(path(&dir, &key), format!("{key}\nBM=64\nextra\n")).unwrap();
        assert_eq!(load(&dir, &key), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_simulator_takes_the_first_candidate_and_runs_nothing() {
        let dev = Device::cpu().unwrap();
        let mut runs = 0u32;
        let first = |_: &Device, n: &mut u32| -> Result<(), Error> {
            *n += 1;
            Ok(())
        };
        let second = |_: &Device, n: &mut u32| -> Result<(), Error> {
            *n += 10;
            Ok(())
        };
        let t = dev
            .autotune(
                "k",
                "1",
                &mut runs,
                &[("a", &first), ("b", &second)],
                |_| Ok(true),
            )
            .unwrap();
        assert_eq!((t.index, t.label.as_str(), runs), (0, "a", 0));
        let none: &[Candidate<'_, u32>] = &[];
        let err = dev
            .autotune("k", "1", &mut runs, none, |_| Ok(true))
            .unwrap_err();
        assert!(err.to_string().contains("no candidates"), "{err}");
    }
}
