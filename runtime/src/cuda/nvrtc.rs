//! NVRTC itself: loading the library, its version and architectures, and one compile of CUDA C
//! to a CUBIN or PTX.
//!
//! Takes CUDA C text, the NVRTC program name (the Rust file) and the options. Gives
//! [`CompiledModule`], [`nvrtc_available`], [`nvrtc_version`] and, to the rest of the back end,
//! the supported architectures and the raw compile. Guarantees: a missing or incomplete NVRTC
//! library is an `Err`, never a panic (calls that could hit a missing symbol are behind
//! `catch_unwind` here or in the caller); a compile error is [`Error::Compile`] with NVRTC's log
//! and, through the `#line` directives, the Rust location and the generated CUDA C of its first
//! error; every NVRTC program created is destroyed.

use crate::error::{CompileError, Error};
use cudarc::nvrtc::sys as nvrtc_sys;
use std::ffi::{c_char, c_int, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What NVRTC produced.
#[derive(Clone, Debug)]
pub struct CompiledModule {
    /// A CUBIN, or NUL-free PTX text when `is_ptx`.
    pub image: Vec<u8>,
    /// Whether `image` is PTX (NVRTC older than the device).
    pub is_ptx: bool,
    /// NVRTC's log: empty when there were no warnings.
    pub log: String,
    /// The options used.
    pub options: Vec<String>,
}

fn nvrtc_err(what: &str, r: nvrtc_sys::nvrtcResult) -> Error {
    Error::NvrtcUnavailable {
        reason: format!("{what} failed: {r:?}"),
    }
}

/// Whether the NVRTC library can be loaded.
pub fn nvrtc_available() -> bool {
    // SAFETY: only tries to dlopen the library by its known names.
    catch_unwind(|| unsafe { nvrtc_sys::is_culib_present() }).unwrap_or(false)
}

pub(super) fn nvrtc_missing() -> Error {
    Error::NvrtcUnavailable {
        reason:
            "the NVRTC library (libnvrtc.so) was not found on the library path; install the CUDA \
                 toolkit, or `pip install nvidia-cuda-nvrtc` and add its `lib` directory to \
                 LD_LIBRARY_PATH"
                .into(),
    }
}

/// NVRTC's version, `(major, minor)`.
pub fn nvrtc_version() -> Result<(i32, i32), Error> {
    if !nvrtc_available() {
        return Err(nvrtc_missing());
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: NVRTC writes two ints through valid pointers.
    let r = catch_unwind(AssertUnwindSafe(|| unsafe {
        nvrtc_sys::nvrtcVersion(&mut major, &mut minor)
    }))
    .map_err(|_| nvrtc_missing())?;
    if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(nvrtc_err("nvrtcVersion", r));
    }
    Ok((major, minor))
}

/// The real architectures NVRTC can produce a CUBIN for.
pub(super) fn supported_archs() -> Result<Vec<u32>, Error> {
    let mut n: c_int = 0;
    // SAFETY: NVRTC writes the count, then that many ints into a buffer of that size.
    unsafe {
        let r = nvrtc_sys::nvrtcGetNumSupportedArchs(&mut n);
        if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
            return Err(nvrtc_err("nvrtcGetNumSupportedArchs", r));
        }
        let mut v = vec![0 as c_int; n.max(0) as usize];
        let r = nvrtc_sys::nvrtcGetSupportedArchs(v.as_mut_ptr());
        if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
            return Err(nvrtc_err("nvrtcGetSupportedArchs", r));
        }
        Ok(v.into_iter().map(|a| a.max(0) as u32).collect())
    }
}

pub(super) fn lacks_function() -> Error {
    Error::NvrtcUnavailable {
        reason: "the NVRTC library lacks a required function; use NVRTC 12 or newer".into(),
    }
}

/// The first error of an NVRTC log as a Rust location (`file:line`, through the `#line`
/// directives of the generated code), and the generated CUDA lines that came from that line.
fn locate(log: &str, source: &str) -> (Option<String>, Option<String>) {
    for line in log.lines() {
        let Some(err_at) = line.find("): error") else {
            continue;
        };
        let head = &line[..err_at];
        let Some(open) = head.rfind('(') else {
            continue;
        };
        let (file, num) = (&head[..open], &head[open + 1..]);
        let Ok(rust_line) = num.parse::<usize>() else {
            continue;
        };
        return (
            Some(format!("{file}:{rust_line}")),
            generated_lines(source, rust_line),
        );
    }
    (None, None)
}

/// The lines of generated CUDA C that `#line` directives attribute to `rust_line`.
fn generated_lines(source: &str, rust_line: usize) -> Option<String> {
    let mut mapped: Option<usize> = None;
    let mut out = Vec::new();
    for l in source.lines() {
        if let Some(rest) = l.strip_prefix("#line ") {
            mapped = rest.split_whitespace().next().and_then(|n| n.parse().ok());
            continue;
        }
        if mapped == Some(rust_line) {
            out.push(l.trim().to_string());
        }
        mapped = mapped.map(|m| m + 1);
    }
    (!out.is_empty()).then(|| out.join("\n"))
}

/// Compiles `source` once with `options`, reading back PTX when `is_ptx`, else a CUBIN.
pub(super) fn compile_inner(
    source: &str,
    name: &str,
    kernel: &str,
    options: Vec<String>,
    is_ptx: bool,
) -> Result<CompiledModule, Error> {
    tracing::info!(kernel, program = name, options = %options.join(" "), "cuphase: NVRTC compile");
    let bad_text = |what: &str| {
        Error::Compile(Box::new(CompileError {
            kernel: kernel.into(),
            options: String::new(),
            log: format!("{what} contains a NUL byte"),
            location: None,
            generated: None,
        }))
    };
    let c_source = CString::new(source).map_err(|_| bad_text("the source"))?;
    let c_name = CString::new(name).map_err(|_| bad_text("the program name"))?;
    let c_options: Vec<CString> = options
        .iter()
        .filter_map(|o| CString::new(o.as_str()).ok())
        .collect();
    let option_ptrs: Vec<*const c_char> = c_options.iter().map(|o| o.as_ptr()).collect();
    let mut prog: nvrtc_sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: all pointers are to live NUL-terminated strings; `prog` is destroyed below on
    // every path.
    unsafe {
        let r = nvrtc_sys::nvrtcCreateProgram(
            &mut prog,
            c_source.as_ptr(),
            c_name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        );
        if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
            return Err(nvrtc_err("nvrtcCreateProgram", r));
        }
        let result = (|| {
            let r = nvrtc_sys::nvrtcCompileProgram(
                prog,
                option_ptrs.len() as c_int,
                option_ptrs.as_ptr(),
            );
            let log = program_log(prog);
            if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
                let (location, generated) = locate(&log, source);
                return Err(Error::Compile(Box::new(CompileError {
                    kernel: kernel.into(),
                    options: options.join(" "),
                    log,
                    location,
                    generated,
                })));
            }
            let mut size = 0usize;
            let image = if is_ptx {
                let r = nvrtc_sys::nvrtcGetPTXSize(prog, &mut size);
                if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
                    return Err(nvrtc_err("nvrtcGetPTXSize", r));
                }
                let mut buf = vec![0u8; size];
                let r = nvrtc_sys::nvrtcGetPTX(prog, buf.as_mut_ptr() as *mut c_char);
                if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
                    return Err(nvrtc_err("nvrtcGetPTX", r));
                }
                while buf.last() == Some(&0) {
                    buf.pop();
                }
                buf
            } else {
                let r = nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size);
                if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
                    return Err(nvrtc_err("nvrtcGetCUBINSize", r));
                }
                let mut buf = vec![0u8; size];
                let r = nvrtc_sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut c_char);
                if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
                    return Err(nvrtc_err("nvrtcGetCUBIN", r));
                }
                buf
            };
            Ok(CompiledModule {
                image,
                is_ptx,
                log,
                options: options.clone(),
            })
        })();
        nvrtc_sys::nvrtcDestroyProgram(&mut prog);
        result
    }
}

/// NVRTC's log for a program, without the trailing NUL.
///
/// # Safety
/// `prog` must be a live program.
unsafe fn program_log(prog: nvrtc_sys::nvrtcProgram) -> String {
    let mut size = 0usize;
    if nvrtc_sys::nvrtcGetProgramLogSize(prog, &mut size) != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS
        || size == 0
    {
        return String::new();
    }
    let mut buf = vec![0u8; size];
    if nvrtc_sys::nvrtcGetProgramLog(prog, buf.as_mut_ptr() as *mut c_char)
        != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS
    {
        return String::new();
    }
    while buf.last() == Some(&0) {
        buf.pop();
    }
    String::from_utf8_lossy(&buf).trim().to_string()
}
