//! The kernels of `tests/in/`, compiled by `#[kernel]`.

#[path = "in/arithmetic.rs"]
pub mod arithmetic;
#[path = "in/async_copy.rs"]
pub mod async_copy;
#[path = "in/attention.rs"]
pub mod attention;
#[path = "in/auto.rs"]
pub mod auto;
#[path = "in/block_reduce.rs"]
pub mod block_reduce;
#[path = "in/classic.rs"]
pub mod classic;
#[path = "in/control_flow.rs"]
pub mod control_flow;
#[path = "in/faults.rs"]
pub mod faults;
#[path = "in/half.rs"]
pub mod half;
#[path = "in/helpers.rs"]
pub mod helpers;
#[path = "in/large_shared.rs"]
pub mod large_shared;
#[path = "in/ldmatrix.rs"]
pub mod ldmatrix;
#[path = "in/apps/llmc.rs"]
pub mod llmc;
#[path = "in/apps/llmc_train.rs"]
pub mod llmc_train;
#[path = "in/locals.rs"]
pub mod locals;
#[path = "in/methods.rs"]
pub mod methods;
#[path = "in/mma.rs"]
pub mod mma;
#[path = "in/neighbor_reuse.rs"]
pub mod neighbor_reuse;
#[path = "in/phases.rs"]
pub mod phases;
#[path = "in/ports.rs"]
pub mod ports;
#[path = "in/races.rs"]
pub mod races;
#[path = "in/reverse.rs"]
pub mod reverse;
#[path = "in/apps/rodinia.rs"]
pub mod rodinia;
#[path = "in/apps/rodinia_lud.rs"]
pub mod rodinia_lud;
#[path = "in/apps/rodinia_srad.rs"]
pub mod rodinia_srad;
#[path = "in/samples/convolution_separable.rs"]
pub mod samples_convolution_separable;
#[path = "in/samples/histogram.rs"]
pub mod samples_histogram;
#[path = "in/samples/matrix_mul.rs"]
pub mod samples_matrix_mul;
#[path = "in/samples/reduction.rs"]
pub mod samples_reduction;
#[path = "in/samples/scan.rs"]
pub mod samples_scan;
#[path = "in/samples/sorting_networks.rs"]
pub mod samples_sorting_networks;
#[path = "in/samples/transpose.rs"]
pub mod samples_transpose;
#[path = "in/tiled_matmul.rs"]
pub mod tiled_matmul;
#[path = "in/warp.rs"]
pub mod warp;
#[path = "in/wgmma.rs"]
pub mod wgmma;

/// Every kernel's name and CUDA C (with the whole-warp variants of the warp kernels).
pub fn all_sources() -> Vec<(&'static str, &'static str)> {
    let mut v = main_sources();
    v.extend(crate::samples::sources());
    v.extend(crate::apps::sources());
    for (name, own, full) in [
        (
            warp::warp_sums.name(),
            warp::warp_sums.cuda_source(),
            warp::warp_sums.__full_warp_sources(),
        ),
        (
            warp::warp_votes.name(),
            warp::warp_votes.cuda_source(),
            warp::warp_votes.__full_warp_sources(),
        ),
        (
            half::half_math.name(),
            half::half_math.cuda_source(),
            half::half_math.__full_warp_sources(),
        ),
        (
            mma::gemm_bf16.name(),
            mma::gemm_bf16.cuda_source(),
            mma::gemm_bf16.__full_warp_sources(),
        ),
        (
            async_copy::gemm_bf16_128_async.name(),
            async_copy::gemm_bf16_128_async.cuda_source(),
            async_copy::gemm_bf16_128_async.__full_warp_sources(),
        ),
        (
            async_copy::gemm_tf32_128_async.name(),
            async_copy::gemm_tf32_128_async.cuda_source(),
            async_copy::gemm_tf32_128_async.__full_warp_sources(),
        ),
        (
            mma::mma_tile_tf32.name(),
            mma::mma_tile_tf32.cuda_source(),
            mma::mma_tile_tf32.__full_warp_sources(),
        ),
    ] {
        // A kernel whose fixed block shape is whole warps has them in its only variants.
        if full.is_empty() {
            assert!(
                !own.contains("constexpr bool warp_whole() { return false; }"),
                "{name} has warp operations: whole-warp variants, or a whole-warp block shape"
            );
        } else {
            assert_eq!(full.len(), 2, "{name}: two whole-warp variants");
        }
        v.extend(full.iter().map(|s| (name, *s)));
    }
    v
}

fn main_sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            helpers::generic_axpy::<f32>.name(),
            helpers::generic_axpy::<f32>.cuda_source(),
        ),
        (
            helpers::generic_axpy::<f64>.name(),
            helpers::generic_axpy::<f64>.cuda_source(),
        ),
        (half::half_math.name(), half::half_math.cuda_source()),
        (
            async_copy::reverse_async.name(),
            async_copy::reverse_async.cuda_source(),
        ),
        (
            async_copy::reverse_async_auto.name(),
            async_copy::reverse_async_auto.cuda_source(),
        ),
        (
            async_copy::sum_slices.name(),
            async_copy::sum_slices.cuda_source(),
        ),
        (
            async_copy::sum_slices_auto.name(),
            async_copy::sum_slices_auto.cuda_source(),
        ),
        (
            async_copy::sum_slices3_auto.name(),
            async_copy::sum_slices3_auto.cuda_source(),
        ),
        (
            async_copy::swap_rows_async.name(),
            async_copy::swap_rows_async.cuda_source(),
        ),
        (
            async_copy::read_before_wait.name(),
            async_copy::read_before_wait.cuda_source(),
        ),
        (
            helpers::const_block_sum::<64>.name(),
            helpers::const_block_sum::<64>.cuda_source(),
        ),
        (
            arithmetic::narrow_abs.name(),
            arithmetic::narrow_abs.cuda_source(),
        ),
        (
            helpers::local_closures.name(),
            helpers::local_closures.cuda_source(),
        ),
        (warp::warp_sums.name(), warp::warp_sums.cuda_source()),
        (warp::dyn_reverse.name(), warp::dyn_reverse.cuda_source()),
        (warp::warp_votes.name(), warp::warp_votes.cuda_source()),
        (
            helpers::helper_math.name(),
            helpers::helper_math.cuda_source(),
        ),
        (
            helpers::helper_reduce.name(),
            helpers::helper_reduce.cuda_source(),
        ),
        (
            locals::local_scopes.name(),
            locals::local_scopes.cuda_source(),
        ),
        (
            locals::local_median.name(),
            locals::local_median.cuda_source(),
        ),
        (
            arithmetic::arithmetic.name(),
            arithmetic::arithmetic.cuda_source(),
        ),
        (
            block_reduce::block_reduce.name(),
            block_reduce::block_reduce.cuda_source(),
        ),
        (
            control_flow::control_flow.name(),
            control_flow::control_flow.cuda_source(),
        ),
        (
            neighbor_reuse::neighbor_reuse.name(),
            neighbor_reuse::neighbor_reuse.cuda_source(),
        ),
        (reverse::reverse.name(), reverse::reverse.cuda_source()),
        (mma::mma_tile_bf16.name(), mma::mma_tile_bf16.cuda_source()),
        (mma::mma_tile_f16.name(), mma::mma_tile_f16.cuda_source()),
        (mma::mma_tile_tf32.name(), mma::mma_tile_tf32.cuda_source()),
        (
            mma::mma_rounds_bf16.name(),
            mma::mma_rounds_bf16.cuda_source(),
        ),
        (mma::gemm_bf16.name(), mma::gemm_bf16.cuda_source()),
        (mma::gemm_bf16_128.name(), mma::gemm_bf16_128.cuda_source()),
        (
            ldmatrix::ldmatrix_forms.name(),
            ldmatrix::ldmatrix_forms.cuda_source(),
        ),
        (
            ldmatrix::ldmatrix_f32_forms.name(),
            ldmatrix::ldmatrix_f32_forms.cuda_source(),
        ),
        (
            ldmatrix::ldmatrix_rounds.name(),
            ldmatrix::ldmatrix_rounds.cuda_source(),
        ),
        (
            ldmatrix::gemm_bf16_ldmatrix.name(),
            ldmatrix::gemm_bf16_ldmatrix.cuda_source(),
        ),
        (
            ldmatrix::gemm_bf16_ldmatrix_db.name(),
            ldmatrix::gemm_bf16_ldmatrix_db.cuda_source(),
        ),
        (
            ldmatrix::gemm_bf16_ldmatrix_rows.name(),
            ldmatrix::gemm_bf16_ldmatrix_rows.cuda_source(),
        ),
        (
            attention::attention_forward.name(),
            attention::attention_forward.cuda_source(),
        ),
        (
            large_shared::large_tiles.name(),
            large_shared::large_tiles.cuda_source(),
        ),
        (
            large_shared::gemm_bf16_wide.name(),
            large_shared::gemm_bf16_wide.cuda_source(),
        ),
        (
            large_shared::gemm_bf16_wide_k64.name(),
            large_shared::gemm_bf16_wide_k64.cuda_source(),
        ),
        (
            large_shared::gemm_tf32_wide.name(),
            large_shared::gemm_tf32_wide.cuda_source(),
        ),
        (
            mma::gemm_bf16_128_k64.name(),
            mma::gemm_bf16_128_k64.cuda_source(),
        ),
        (
            tiled_matmul::tiled_matmul.name(),
            tiled_matmul::tiled_matmul.cuda_source(),
        ),
        (
            faults::read_past_end.name(),
            faults::read_past_end.cuda_source(),
        ),
        (
            faults::shared_column_past_end.name(),
            faults::shared_column_past_end.cuda_source(),
        ),
        (faults::divide.name(), faults::divide.cuda_source()),
        (
            faults::local_past_end.name(),
            faults::local_past_end.cuda_source(),
        ),
        (
            faults::divergent_barrier.name(),
            faults::divergent_barrier.cuda_source(),
        ),
        (
            faults::early_return.name(),
            faults::early_return.cuda_source(),
        ),
        (
            faults::two_barriers.name(),
            faults::two_barriers.cuda_source(),
        ),
        (faults::zero_step.name(), faults::zero_step.cuda_source()),
        (classic::scan.name(), classic::scan.cuda_source()),
        (classic::transpose.name(), classic::transpose.cuda_source()),
        (classic::stencil.name(), classic::stencil.cuda_source()),
        (classic::histogram.name(), classic::histogram.cuda_source()),
        (auto::reverse_auto.name(), auto::reverse_auto.cuda_source()),
        (
            auto::neighbor_reuse_auto.name(),
            auto::neighbor_reuse_auto.cuda_source(),
        ),
        (
            auto::tiled_matmul_auto.name(),
            auto::tiled_matmul_auto.cuda_source(),
        ),
        (
            auto::block_reduce_auto.name(),
            auto::block_reduce_auto.cuda_source(),
        ),
        (auto::scan_auto.name(), auto::scan_auto.cuda_source()),
        (
            auto::transpose_auto.name(),
            auto::transpose_auto.cuda_source(),
        ),
        (auto::stencil_auto.name(), auto::stencil_auto.cuda_source()),
        (
            auto::histogram_auto.name(),
            auto::histogram_auto.cuda_source(),
        ),
        (
            auto::useless_barriers.name(),
            auto::useless_barriers.cuda_source(),
        ),
        (
            ports::float_consts.name(),
            ports::float_consts.cuda_source(),
        ),
        (
            crate::ports::ranges.name(),
            crate::ports::ranges.cuda_source(),
        ),
        (
            crate::ports::inclusive_strided.name(),
            crate::ports::inclusive_strided.cuda_source(),
        ),
        (
            ports::short_circuit_helpers.name(),
            ports::short_circuit_helpers.cuda_source(),
        ),
        (
            ports::deferred_init.name(),
            ports::deferred_init.cuda_source(),
        ),
        (
            ports::deferred_tuple.name(),
            ports::deferred_tuple.cuda_source(),
        ),
        (
            ports::tuple_discard.name(),
            ports::tuple_discard.cuda_source(),
        ),
        (
            ports::shared_alias.name(),
            ports::shared_alias.cuda_source(),
        ),
        (
            ports::tuple_discard_helper.name(),
            ports::tuple_discard_helper.cuda_source(),
        ),
        (
            ports::borrowed_elements.name(),
            ports::borrowed_elements.cuda_source(),
        ),
        (ports::sub_slices.name(), ports::sub_slices.cuda_source()),
        (ports::path_calls.name(), ports::path_calls.cuda_source()),
        (
            ports::array_literals.name(),
            ports::array_literals.cuda_source(),
        ),
    ]
}
