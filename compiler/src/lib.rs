//! cuphase's kernel compiler.
//!
//! The pipeline, one module per stage:
//!
//! 1. [`front`]: a `syn::ItemFn` is lowered to the kernel [`ir`] and type-checked; every user
//!    error is collected as a [`diag::Diagnostic`] with the user's span.
//! 2. [`back`]: writers read the checked IR: [`back::cuda`] writes CUDA C, [`back::sim`] writes
//!    the Rust code the CPU simulator runs, [`back::host`] writes the kernel value with its
//!    typed `launch`.
//!
//! The proc-macro crate is a thin wrapper over [`expand_kernel`]; everything here is an
//! ordinary library, testable without a macro context ([`compile_str`]).

pub mod analysis;
pub mod back;
pub mod diag;
pub mod front;
pub mod generic;
pub mod helpers;
pub mod ir;

use proc_macro2::TokenStream;

/// What compiling one kernel gives.
pub struct Compiled {
    /// The checked IR and its types.
    pub checked: front::Checked,
    /// The CUDA C source without bounds checks (what release builds run by default).
    pub cuda: String,
    /// The kernel without bounds checks, with the fault sites it keeps (division, `step_by`).
    pub cuda_unchecked: back::cuda::CudaKernel,
    /// The kernel with bounds checks (what debug builds run by default).
    pub cuda_checked: back::cuda::CudaKernel,
    /// For a kernel with warp operations, the variants (unchecked, checked) the runtime
    /// launches when the block is a whole number of warps.
    pub cuda_full_warps: Option<(back::cuda::CudaKernel, back::cuda::CudaKernel)>,
    /// What the barrier analyses found and did.
    pub report: analysis::Report,
}

/// Compiles a parsed kernel function. `file` is the Rust path written into `#line` directives
/// and fault locations.
pub fn compile(
    attr: TokenStream,
    func: &syn::ItemFn,
    file: &str,
) -> Result<Compiled, Vec<diag::Diagnostic>> {
    compile_with(attr, func, file, &helpers::Helpers::default())
}

/// Compiles a parsed kernel function whose `#[device]` helpers are at hand in `helpers`.
pub fn compile_with(
    attr: TokenStream,
    func: &syn::ItemFn,
    file: &str,
    helpers: &helpers::Helpers,
) -> Result<Compiled, Vec<diag::Diagnostic>> {
    let mut checked = front::check_kernel(attr, func, helpers)?;
    let report = analysis::check(&mut checked)?;
    let cuda_unchecked =
        back::cuda::write_kernel_checked(&checked.kernel, &checked.types, file, false);
    let cuda_checked =
        back::cuda::write_kernel_checked(&checked.kernel, &checked.types, file, true);
    let cuda_full_warps = back::cuda::uses_warp_ops(&checked.kernel).then(|| {
        (
            back::cuda::write_kernel_variant(&checked.kernel, &checked.types, file, false, true),
            back::cuda::write_kernel_variant(&checked.kernel, &checked.types, file, true, true),
        )
    });
    Ok(Compiled {
        cuda_full_warps,
        cuda: cuda_unchecked.source.clone(),
        cuda_unchecked,
        cuda_checked,
        checked,
        report,
    })
}

/// Compiles kernel source text (a whole `fn` item, without the `#[kernel]` attribute);
/// for tests and tools.
pub fn compile_str(
    attr: &str,
    source: &str,
    file: &str,
) -> Result<Compiled, Vec<diag::Diagnostic>> {
    let (attr, func) = parse_source(attr, source)?;
    compile(attr, &func, file)
}

/// The attribute tokens and the function of kernel source text.
fn parse_source(
    attr: &str,
    source: &str,
) -> Result<(TokenStream, syn::ItemFn), Vec<diag::Diagnostic>> {
    let func: syn::ItemFn =
        syn::parse_str(source).map_err(|e| vec![diag::Diagnostic::new(e.span(), e.to_string())])?;
    let attr: TokenStream = attr.parse().map_err(|e: proc_macro2::LexError| {
        vec![diag::Diagnostic::new(
            proc_macro2::Span::call_site(),
            e.to_string(),
        )]
    })?;
    Ok((attr, func))
}

/// Compiles kernel source text that calls helpers given as source text (`#[device]` items
/// that live in the kernel's module); for tests and tools.
pub fn compile_str_with_helpers(
    attr: &str,
    source: &str,
    helper_sources: &[&str],
    file: &str,
) -> Result<Compiled, Vec<diag::Diagnostic>> {
    let (attr, func) = parse_source(attr, source)?;
    let helpers = helpers::collect_from_sources(&func, helper_sources)
        .map_err(|e| vec![diag::Diagnostic::new(e.span(), e.to_string())])?;
    compile_with(attr, &func, file, &helpers)
}

/// The whole expansion of `#[kernel]`: the kernel value, or the errors and a fallback item.
/// Never panics on user input.
pub fn expand_kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let mut out = syn::Error::new(
                e.span(),
                "`#[kernel]` goes on a free function: `#[kernel] fn name(..) { .. }`",
            )
            .to_compile_error();
            out.extend(item);
            return out;
        }
    };
    if !helpers::callees(&func).is_empty() {
        // Fetch the helpers' source first (see `helpers`); the kernel compiles at the end.
        return helpers::start(attr, &func);
    }
    let file = func.sig.ident.span().file();
    expand_compiled(attr, &func, &file, &helpers::Helpers::default())
}

/// `kernel!(|a: &mut [f32], ..| { .. })`: a closure-shaped kernel, as an expression whose
/// value is the kernel. Every parameter is typed; the closure captures nothing.
pub fn expand_kernel_closure(input: TokenStream) -> TokenStream {
    let closure: syn::ExprClosure = match syn::parse2(input) {
        Ok(c) => c,
        Err(e) => {
            return syn::Error::new(
                e.span(),
                "`kernel_closure!` takes a closure with typed parameters: `kernel_closure!(|out: &mut [f32], x: f32| { .. })`",
            )
            .to_compile_error()
        }
    };
    let mut errors = Vec::new();
    for (what, present) in [
        ("`move`", closure.capture.is_some()),
        ("`async`", closure.asyncness.is_some()),
        ("`static`", closure.movability.is_some()),
        ("`const`", closure.constness.is_some()),
    ] {
        if present {
            errors.push(syn::Error::new_spanned(
                &closure,
                format!("a `kernel_closure!` closure cannot be {what}"),
            ));
        }
    }
    let mut inputs = Vec::new();
    for p in &closure.inputs {
        match p {
            syn::Pat::Type(pt) => inputs.push(pt.clone()),
            other => errors.push(syn::Error::new_spanned(
                other,
                "every parameter of a `kernel_closure!` closure needs a type: `name: T`",
            )),
        }
    }
    if let Some(e) = errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        return e.to_compile_error();
    }
    let line = closure.or1_token.span.start().line;
    let name = quote::format_ident!("closure_kernel_{}", line, span = closure.or1_token.span);
    let output = &closure.output;
    let body = match &*closure.body {
        syn::Expr::Block(b) => b.block.clone(),
        other => syn::parse_quote!({ #other }),
    };
    let func = syn::ItemFn {
        attrs: Vec::new(),
        vis: syn::Visibility::Inherited,
        sig: syn::parse_quote!(fn #name(#(#inputs),*) #output),
        block: Box::new(body),
    };
    let items = expand_kernel(
        quote::quote!(__closure),
        quote::ToTokens::to_token_stream(&func),
    );
    quote::quote!({ #items #name })
}

/// `#[device]`'s expansion.
pub fn expand_device(attr: TokenStream, item: TokenStream) -> TokenStream {
    helpers::expand_device(attr, item)
}

/// Compiles a kernel whose helpers are at hand and writes its items, or its errors and a
/// fallback item. Never panics on user input.
pub fn expand_compiled(
    attr: TokenStream,
    func: &syn::ItemFn,
    file: &str,
    helpers: &helpers::Helpers,
) -> TokenStream {
    if generic::has_type_params(func) {
        return generic::expand(attr, func, file, helpers);
    }
    // A bug in cuphase must not look like a bug in the user's code: report it as an error.
    let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        compile_with(attr, func, file, helpers)
    }));
    let compiled = match compiled {
        Ok(c) => c,
        Err(_) => Err(vec![diag::Diagnostic::new(
            func.sig.ident.span(),
            "internal error in cuphase while compiling this kernel; please report it with the kernel's source",
        )]),
    };
    match compiled {
        Ok(c) => {
            let sim = back::sim::write_kernel(&c.checked.kernel, &c.checked.types, file);
            back::host::write(func, &c, sim, file)
        }
        Err(diags) => {
            let errors: TokenStream = diags
                .iter()
                .map(diag::Diagnostic::to_compile_error)
                .collect();
            back::host::fallback(func, errors)
        }
    }
}
